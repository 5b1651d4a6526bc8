/* clparity devices: clinfo -l's shape, with the properties that decide exactness. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/engine.h"
#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <stdio.h>

static const struct opt_use devices_uses[] = {
    {.id = OPT_DEVICE,
     .help = "only these devices, as clinfo -d P:D: a selector as every command\n"
             "takes it (docs/SELECTION.md), such as 0:0, gpu, host or a label\n"
             "as printed (\"0:0 NAME\"); default: every device"},
    {.id = OPT_JSON, .def = "the list, with provenance,"},
    {.id = OPT_PROBE},
};

struct devices_opts {
    const char *json;
    bool probe;
    char **sels; /* -d, argc of them at most */
    size_t nsel;
};

static void devices_help(void)
{
    printf("usage: clparity devices [-d SEL] [--json FILE] [--probe]\n"
           "\n"
           "Lists every OpenCL platform and device that the ICD loader finds, in clinfo -l's\n"
           "order and indices (Platform #P, Device #D: the P:D of a -d selector), with type,\n"
           "compute units, clock, global and max-alloc memory, OpenCL C and driver versions\n"
           "and the FP32 config; then a `host` row with OpenBLAS's version, core and threads.\n"
           "A simulator (Oclgrind) is marked: it is left out of the default selection.\n"
           "\n"
           "Then, per OpenCL device, the verdicts of cl:own's probe on its kernel paths: before\n"
           "cl:own first takes a path on a device, the path runs a small model there and must\n"
           "give host:exact's bits, or it is rejected and the next path taken. Verdicts are\n"
           "kept in the program cache; those shown are for the reference model's class (square\n"
           "layers up to 128 wide, ReLU and residual, batch up to 16). --probe probes the paths\n"
           "that have no verdict yet (a program build each, seconds on PoCL).\n"
           "\n");
    opts_help(stdout, devices_uses, sizeof devices_uses / sizeof *devices_uses);
}

static int set_opt(void *ctx, enum opt_id id, const struct opt_value *v)
{
    struct devices_opts *o = ctx;
    if (id == OPT_DEVICE)
        o->sels[o->nsel++] = (char *)v->s;
    else if (id == OPT_JSON)
        o->json = v->s;
    else if (id == OPT_PROBE)
        o->probe = true;
    return CP_OK;
}

static const char *verdict_word(int v)
{
    return v == 1 ? "passed" : v == 0 ? "rejected" : v == -1 ? "not probed" : "n/a";
}

/* The probe's verdicts on cl:own's paths for every OpenCL device: printed (out may be NULL)
 * and added to each device's JSON object (list may be NULL) as "own_paths". */
static int probe_paths(const cp_devlist *devs, bool run, FILE *out, cJSON *list)
{
    bool any = false;
    for (size_t i = 0; i < devs->n; ++i) {
        const cp_device *d = &devs->v[i];
        if (d->kind != CP_DEV_OPENCL)
            continue;
        if (out && !any)
            fprintf(out, "\ncl:own kernel paths, probed on the reference model's class%s:\n",
                    run ? "" : " (--probe probes those not probed yet)");
        any = true;
        char label[300];
        cp_device_label(d, label, sizeof label);
        cJSON *arr = list ? cJSON_CreateArray() : NULL;
        if (arr && !cp_json_add(cJSON_GetArrayItem(list, (int)i), "own_paths", arr))
            arr = NULL; /* deleted */
        char line[4][512] = {"", "", "", ""};
        static const int order[4] = {1, 0, -1, -2};
        char why_rej[8192] = "";
        for (size_t p = 0; p < cp_own_path_count(); ++p) {
            int v;
            char why[CP_PROBE_WHY];
            int st = cp_own_probe_path(d, p, run, &v, why, sizeof why);
            if (st != CP_OK)
                return st;
            for (int k = 0; k < 4; ++k)
                if (order[k] == v)
                    snprintf(line[k] + strlen(line[k]), sizeof line[k] - strlen(line[k]), " %s",
                             cp_own_path_name(p));
            if (v == 0)
                snprintf(why_rej + strlen(why_rej), sizeof why_rej - strlen(why_rej),
                         "      rejected %s: %s\n", cp_own_path_name(p), why);
            cJSON *o = arr ? cJSON_CreateObject() : NULL;
            if (o) {
                cJSON_AddStringToObject(o, "path", cp_own_path_name(p));
                cJSON_AddStringToObject(o, "verdict", verdict_word(v));
                cJSON_AddStringToObject(o, "why", why);
                cp_json_push(arr, o);
            }
        }
        if (!out)
            continue;
        fprintf(out, "  %s\n", label);
        for (int k = 0; k < 4; ++k)
            if (line[k][0])
                fprintf(out, "    %-10s%s\n", verdict_word(order[k]), line[k]);
        fputs(why_rej, out);
    }
    return CP_OK;
}

int cmd_devices(int argc, char **argv)
{
    struct devices_opts o = {NULL, false, calloc((size_t)argc + 1, sizeof(char *)), 0};
    if (!o.sels)
        return cli_fail("devices", CP_FAIL_RUNTIME, "out of memory");
    bool handled;
    int pst =
        opts_parse("devices", argc, argv, devices_uses, sizeof devices_uses / sizeof *devices_uses,
                   set_opt, NULL, &o, devices_help, &handled);
    const char *json_path = o.json;
    if (pst == CP_OK && !handled && json_path)
        pst = cli_check_output_file("devices", "--json", json_path);
    if (pst != CP_OK || handled) {
        free(o.sels);
        return pst;
    }

    cp_devlist devs = {0};
    bool *chosen = NULL;
    int st = o.nsel ? cli_select_devices("devices", o.sels, o.nsel, &devs, &chosen)
                    : cp_devlist_enumerate(&devs);
    free(o.sels);
    if (st != CP_OK) {
        free(chosen);
        cp_devlist_free(&devs);
        return o.nsel ? st : cli_fail("devices", st, "%s", cp_err_msg());
    }
    if (chosen) { /* -d: the selected devices only, in their order */
        size_t k = 0;
        for (size_t i = 0; i < devs.n; ++i)
            if (chosen[i])
                devs.v[k++] = devs.v[i];
        devs.n = k;
        free(chosen);
    }
    /* Only host, or fewer platforms than installed: still a listing, with the reason. */
    if (devs.env_note[0])
        fprintf(stderr, "clparity devices: warning: %s\n", devs.env_note);
    FILE *out = !json_path || strcmp(json_path, "-") != 0 ? stdout : NULL;
    if (out)
        cp_devlist_print(&devs, out);
    cJSON *list = json_path ? cp_devlist_json(&devs) : NULL;
    st = probe_paths(&devs, o.probe, out, list);
    if (st != CP_OK) {
        cJSON_Delete(list);
        st = cli_fail("devices", st, "%s", cp_err_msg());
        goto out;
    }
    if (json_path) {
        cJSON *root = cJSON_CreateObject();
        cJSON *prov = cp_provenance_json("");
        if (!root || !prov || !list) {
            cJSON_Delete(root);
            cJSON_Delete(prov);
            cJSON_Delete(list);
            st = cli_fail("devices", CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        cJSON_AddNumberToObject(root, "schema", 1);
        cp_json_add(root, "provenance", prov);
        cp_json_add(root, "devices", list);
        if (devs.env_note[0])
            cJSON_AddStringToObject(root, "warning", devs.env_note);
        else
            cJSON_AddNullToObject(root, "warning");
        st = cli_write_json("devices", NULL, json_path, root);
    }
out:
    cp_devlist_free(&devs);
    return st;
}
