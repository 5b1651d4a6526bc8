/* The optimizers' descriptions (clparity/train.h): PyTorch's defaults, names and checks. */
#include "clparity/train.h"

#include "train-optim-impl.h"

#include "clparity/error.h"

#include <math.h>

void cp_optim_default(enum cp_optim_kind kind, double lr, cp_optim *o)
{
    *o = (cp_optim){.kind = kind,
                    .lr = lr,
                    .momentum = kind == CP_OPTIM_MOMENTUM ? 0.9 : 0.0,
                    .beta1 = 0.9,
                    .beta2 = 0.999,
                    .eps = 1e-8,
                    .weight_decay = kind == CP_OPTIM_ADAMW ? 1e-2 : 0.0};
}

size_t cp_optim_tensors(const cp_optim *o)
{
    return train_needs_grad(o) ? 1 + train_state_count(o->kind) : 0;
}

const char *cp_optim_name(enum cp_optim_kind kind)
{
    switch (kind) {
    case CP_OPTIM_SGD:
        return "sgd";
    case CP_OPTIM_MOMENTUM:
        return "momentum";
    case CP_OPTIM_ADAM:
        return "adam";
    case CP_OPTIM_ADAMW:
        return "adamw";
    }
    return "?";
}

/* PyTorch's own checks (torch.optim.SGD, Adam, AdamW), and ours: momentum > 0 for the
 * momentum optimizer (0 is plain SGD), eps > 0, every value finite. */
int cp_optim_check(const cp_optim *o)
{
    const char *name = cp_optim_name(o->kind);
    bool adam = o->kind == CP_OPTIM_ADAM || o->kind == CP_OPTIM_ADAMW;
    if (!(o->lr >= 0.0) || !isfinite(o->lr))
        return cp_err_set(CP_FAIL_USAGE, "lr %g: must be a finite number >= 0", o->lr);
    if (!(o->weight_decay >= 0.0) || !isfinite(o->weight_decay))
        return cp_err_set(CP_FAIL_USAGE, "weight_decay %g: must be a finite number >= 0",
                          o->weight_decay);
    if (o->kind == CP_OPTIM_MOMENTUM && (!(o->momentum > 0.0) || !isfinite(o->momentum)))
        return cp_err_set(CP_FAIL_USAGE,
                          "momentum %g: the momentum optimizer needs a finite momentum > 0 (0 is "
                          "plain SGD: --optimizer sgd)",
                          o->momentum);
    if (o->kind != CP_OPTIM_MOMENTUM && o->momentum != 0.0)
        return cp_err_set(CP_FAIL_USAGE, "momentum applies to the momentum optimizer, not %s",
                          name);
    if (o->nesterov && o->kind != CP_OPTIM_MOMENTUM)
        return cp_err_set(CP_FAIL_USAGE,
                          "nesterov needs momentum > 0: it applies to the momentum optimizer, "
                          "not %s",
                          name);
    if (adam && !(o->beta1 >= 0.0 && o->beta1 < 1.0))
        return cp_err_set(CP_FAIL_USAGE, "betas: beta1 %g is not in [0, 1)", o->beta1);
    if (adam && !(o->beta2 >= 0.0 && o->beta2 < 1.0))
        return cp_err_set(CP_FAIL_USAGE, "betas: beta2 %g is not in [0, 1)", o->beta2);
    if (adam && (!(o->eps > 0.0) || !isfinite(o->eps)))
        return cp_err_set(CP_FAIL_USAGE, "eps %g: must be a finite number > 0", o->eps);
    return CP_OK;
}

size_t train_state_count(enum cp_optim_kind kind)
{
    return kind == CP_OPTIM_MOMENTUM ? 1 : kind == CP_OPTIM_ADAM || kind == CP_OPTIM_ADAMW ? 2 : 0;
}

const char *train_state_name(enum cp_optim_kind kind, size_t k)
{
    if (kind == CP_OPTIM_MOMENTUM && k == 0)
        return "momentum_buffer";
    if ((kind == CP_OPTIM_ADAM || kind == CP_OPTIM_ADAMW) && k < 2)
        return k == 0 ? "exp_avg" : "exp_avg_sq";
    return "";
}

bool train_needs_grad(const cp_optim *o)
{
    return o->kind != CP_OPTIM_SGD || o->weight_decay != 0.0;
}
