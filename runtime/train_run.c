/* Training by engine name (clparity/train.h): each engine's training ops from the registry
 * (cp_engine_info's .train). */
#include "clparity/engine.h"
#include "clparity/train.h"

#include "train-impl.h"

#include "clparity/error.h"

/* The training ops of the engine named engine; NULL where it has none. */
static const struct cp_train_ops *train_ops_named(const char *engine)
{
    const cp_engine_info *e = cp_engine_find(engine);
    return e ? e->train : NULL;
}

bool cp_train_engine_supported(const char *engine)
{
    return train_ops_named(engine) != NULL;
}

int cp_trainer_create(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                      const float *x, const float *t, double lr, cp_trainer **out)
{
    cp_optim o;
    cp_optim_default(CP_OPTIM_SGD, lr, &o);
    return cp_trainer_create_optim(engine, dev, m, batch, x, t, &o, out);
}

int cp_trainer_create_optim(const char *engine, const cp_device *dev, const cp_model *m, int batch,
                            const float *x, const float *t, const cp_optim *o, cp_trainer **out)
{
    *out = NULL;
    int st = cp_optim_check(o);
    if (st != CP_OK)
        return st;
    const struct cp_train_ops *ops = train_ops_named(engine);
    if (!ops)
        return cp_err_set(CP_FAIL_USAGE, "train does not support the engine %s", engine);
    /* the registry's name: it outlives the trainer, where engine may not */
    return train_create(ops, cp_engine_find(engine)->name, dev, m, batch, x, t, o, out);
}
