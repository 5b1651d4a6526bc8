/* The optimizer's update of parameters [i0, i1), included by train_host_tmpl.h with OPT_ATTR
 * and OPT_NAME defined, once for each instruction-set level: every level gives the same bits
 * (each operation one IEEE operation: fma, *, +, /, sqrt, correctly rounded in every lane). */
OPT_ATTR void OPT_NAME(struct train_host *h, size_t i0, size_t i1)
{
    struct train_scalars s;
    train_scalars_at(&h->opt, h->step, &s);
    T *p = h->p, *G = h->grad, *b = h->st[0], *m = h->st[0], *v = h->st[1];
    const T neg_lr = (T)s.neg_lr, wd = (T)s.wd, mom = (T)s.mom, w1 = (T)s.w1;
    const T beta2 = (T)s.beta2, c2 = (T)s.c2, bc2_sqrt = (T)s.bc2_sqrt, nss = (T)s.nss;
    const T decay = (T)s.decay, eps = (T)s.eps;
    const bool decay_on = s.wd != 0.0, small = (w1 < (T)0 ? -w1 : w1) < (T)0.5;
    switch (h->opt.kind) {
    case CP_OPTIM_SGD:
        for (size_t i = i0; i < i1; ++i) {
            T g = decay_on ? FMA(p[i], wd, G[i]) : G[i];
            p[i] = FMA(g, neg_lr, p[i]);
        }
        break;
    case CP_OPTIM_MOMENTUM:
        for (size_t i = i0; i < i1; ++i) {
            T g = decay_on ? FMA(p[i], wd, G[i]) : G[i];
            if (s.first) {
                b[i] = g;
            } else {
                b[i] = b[i] * mom;
                b[i] = b[i] + g;
            }
            g = h->opt.nesterov ? FMA(b[i], mom, g) : b[i];
            p[i] = FMA(g, neg_lr, p[i]);
        }
        break;
    case CP_OPTIM_ADAM:
    case CP_OPTIM_ADAMW: {
        const bool decoupled = h->opt.kind == CP_OPTIM_ADAMW;
        const bool dec = decay_on && decoupled, l2 = decay_on && !decoupled;
        for (size_t i = i0; i < i1; ++i) { /* every store unconditional: the loop vectorises */
            T g = G[i], pi = p[i];
            T pd = pi * decay; /* both sides of each choice, then the choice: no branch */
            pi = dec ? pd : pi;
            T gd = FMA(pi, wd, g);
            g = l2 ? gd : g;
            T d = g - m[i];
            T ms = FMA(w1, d, m[i]), mb = FMA(w1 - (T)1, d, g);
            T mi = small ? ms : mb;
            T vi = v[i] * beta2;
            vi = vi + (c2 * g) * g;
            T denom = SQRT(vi) / bc2_sqrt + eps;
            m[i] = mi;
            v[i] = vi;
            p[i] = pi + (nss * mi) / denom;
        }
        break;
    }
    }
}
