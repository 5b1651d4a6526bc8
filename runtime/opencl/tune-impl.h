/* Private: cl:own's tune settings for a device (tune.c): the defaults, `clparity tune`'s store
 * and CLPARITY_OWN_TUNE. Their name=value lists are parsed from a table of parameters: the
 * parser and the tables are params.c's (params-impl.h), below env.c, which checks the variables
 * with them. */
#ifndef CLPARITY_TUNE_IMPL_H
#define CLPARITY_TUNE_IMPL_H

#include "clparity/tune.h"
#include "params-impl.h" /* cp_own_tune, its parser */

#include <stddef.h>

/* Where a setting came from. */
enum cp_tune_source { CP_TUNE_DEFAULT, CP_TUNE_CACHED, CP_TUNE_ENV };

/* The settings for dev: the defaults (pref_vec: CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT),
 * replaced by what `clparity tune` stored for this device, driver and platform version
 * (unless CLPARITY_CACHE=off), replaced by CLPARITY_OWN_TUNE
 * ("rc=32,rd=2,bk=16,...", any subset of the names of cp_tune_format). CP_FAIL_USAGE when
 * CLPARITY_OWN_TUNE does not parse; a stored entry that does not parse is ignored. */
int cp_tune_get(const cp_device *dev, unsigned pref_vec, cp_own_tune *t, enum cp_tune_source *src);

/* "rc=64,bk=32,db=0,xl=0,xp=4,vw=16,rb=8,nv=2,mc=128" */
void cp_tune_format(const cp_own_tune *t, char *buf, size_t len);

/* Stores t for dev in <cache dir>/tune.json (atomically), with cl:cr's settings cr_spec
 * ("wg=128,ob=2,tk=16": CLPARITY_CR_TUNE's names, never path; NULL or "" for none), the date
 * and what was measured (a cJSON object passed as void *, or NULL). An entry is
 * {"params": "<cp_tune_format>", "cr_params": "<cr_spec>", "date": ..., "measured": ...};
 * entries without cr_params (stored before cl:cr was tuned) stay valid. */
int cp_tune_store(const cp_device *dev, const cp_own_tune *t, const char *cr_spec, void *measured);

#endif
