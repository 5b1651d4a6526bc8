/* The optimizer's update of n parameters p[0, n) from their gradients G and the optimizer's
 * state (st0: momentum's buffer or Adam's m; st1: Adam's v; NULL where the optimizer has none)
 * with one step's scalars s, included by train_host_tmpl.h with OPT_ATTR, OPT_NAME and ADAM_NAME
 * defined,
 * once for each instruction-set level: every level gives the same bits (each operation one
 * IEEE operation: fma, *, +, /, sqrt, correctly rounded in every lane). Each parameter's update
 * reads only its own p, G and state: the threaded step applies it to each span of a layer as
 * soon as its gradient is known (hostblas/train_par_tmpl.h). The four arrays never overlap
 * (restrict: without it GCC keeps the loops scalar). */
/* Adam's and AdamW's loop, inlined with constant choices into OPT_NAME's cases. */
static inline __attribute__((always_inline)) void
ADAM_NAME(T *restrict p, const T *restrict G, T *restrict m, T *restrict v,
          const struct train_scalars *sc, size_t n, const bool dec, const bool l2, const bool small)
{
    const T wd = (T)sc->wd, w1 = (T)sc->w1, beta2 = (T)sc->beta2, c2 = (T)sc->c2;
    const T bc2_sqrt = (T)sc->bc2_sqrt, nss = (T)sc->nss, decay = (T)sc->decay, eps = (T)sc->eps;
    for (size_t i = 0; i < n; ++i) { /* every store unconditional: the loop vectorises */
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
}

OPT_ATTR void OPT_NAME(const cp_optim *o, const struct train_scalars *sc, T *restrict p,
                       const T *restrict G, T *restrict st0, T *restrict st1, size_t n)
{
    const struct train_scalars s = *sc;
    T *restrict b = st0, *restrict m = st0, *restrict v = st1;
    const T neg_lr = (T)s.neg_lr, wd = (T)s.wd, mom = (T)s.mom, w1 = (T)s.w1;
    const bool decay_on = s.wd != 0.0, small = (w1 < (T)0 ? -w1 : w1) < (T)0.5;
    switch (o->kind) {
    case CP_OPTIM_SGD:
        for (size_t i = 0; i < n; ++i) {
            T g = decay_on ? FMA(p[i], wd, G[i]) : G[i];
            p[i] = FMA(g, neg_lr, p[i]);
        }
        break;
    case CP_OPTIM_MOMENTUM:
        for (size_t i = 0; i < n; ++i) {
            T g = decay_on ? FMA(p[i], wd, G[i]) : G[i];
            if (s.first) {
                b[i] = g;
            } else {
                b[i] = b[i] * mom;
                b[i] = b[i] + g;
            }
            g = o->nesterov ? FMA(b[i], mom, g) : b[i];
            p[i] = FMA(g, neg_lr, p[i]);
        }
        break;
    case CP_OPTIM_ADAM:
    case CP_OPTIM_ADAMW: {
        const bool decoupled = o->kind == CP_OPTIM_ADAMW;
        const bool dec = decay_on && decoupled, l2 = decay_on && !decoupled;
        /* each combination of the choices its own loop, so that every one vectorises */
        if (small && !dec && !l2)
            ADAM_NAME(p, G, m, v, &s, n, false, false, true);
        else if (small && dec)
            ADAM_NAME(p, G, m, v, &s, n, true, false, true);
        else if (small)
            ADAM_NAME(p, G, m, v, &s, n, false, true, true);
        else
            ADAM_NAME(p, G, m, v, &s, n, dec, l2, false);
        break;
    }
    }
}
