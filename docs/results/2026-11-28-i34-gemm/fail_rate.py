# The fraction of outputs whose first certificate (cr.cl cr_output: the double sum within
# 1.01 (n + 2) 2^-53 |x| |W_o| of a rounding boundary) fails, for random operands as the
# model's (x normal, W uniform / sqrt(d)). Run: /usr/bin/python3 fail_rate.py
import numpy as np
rng=np.random.default_rng(1)
for d,B in [(128,256),(1024,64),(4096,64)]:
    x=rng.standard_normal((B,d)).astype(np.float32)
    W=(rng.uniform(-1,1,(d,d))/np.sqrt(d)).astype(np.float32)
    s=x.astype(np.float64)@W.astype(np.float64).T
    nrm=np.linalg.norm(x.astype(np.float64),axis=1)[:,None]*np.linalg.norm(W.astype(np.float64),axis=1)[None,:]
    err=1.01*(d+2)*2.0**-53*nrm
    a=np.abs(s); r=a.astype(np.float32)
    lo=(r.astype(np.float64)+np.nextafter(r,np.float32(0)).astype(np.float64))/2
    hi=(r.astype(np.float64)+np.nextafter(r,np.float32(np.inf)).astype(np.float64))/2
    ok=(a-lo>err)&(hi-a>err)
    f=1-ok.mean()
    print(d,B,"fail fraction %.2e"%f, "fails per layer at B=%d: %.1f"%(B, f*B*d), "per 4096-row layer %.0f"%(f*4096*d))
