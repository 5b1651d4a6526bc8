/* clparity devices: clinfo -l's shape, with the properties that decide exactness. */
#include "cli.h"
#include "cmds.h"
#include "opts.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <string.h>
#include <stdio.h>

static const struct opt_use devices_uses[] = {
    {.id = OPT_JSON, .def = "the list, with provenance,"},
};

static void devices_help(void)
{
    printf("usage: clparity devices [--json FILE]\n"
           "\n"
           "Lists every OpenCL platform and device that the ICD loader finds, in clinfo -l's\n"
           "order and indices (Platform #P, Device #D: the P:D of a -d selector), with type,\n"
           "compute units, clock, global and max-alloc memory, OpenCL C and driver versions\n"
           "and the FP32 config; then a `host` row with OpenBLAS's version, core and threads.\n"
           "A simulator (Oclgrind) is marked: it is left out of the default selection.\n"
           "\n");
    opts_help(stdout, devices_uses, sizeof devices_uses / sizeof *devices_uses);
}

static int set_json(void *ctx, enum opt_id id, const struct opt_value *v)
{
    if (id == OPT_JSON)
        *(const char **)ctx = v->s;
    return CP_OK;
}

int cmd_devices(int argc, char **argv)
{
    const char *json_path = NULL;
    bool handled;
    int pst =
        opts_parse("devices", argc, argv, devices_uses, sizeof devices_uses / sizeof *devices_uses,
                   set_json, NULL, &json_path, devices_help, &handled);
    if (pst != CP_OK || handled)
        return pst;
    if (json_path && cli_check_output_file("devices", "--json", json_path) != CP_OK)
        return CP_FAIL_RUNTIME;

    cp_devlist devs;
    int st = cp_devlist_enumerate(&devs);
    if (st != CP_OK)
        return cli_fail("devices", st, "%s", cp_err_msg());
    if (!json_path || strcmp(json_path, "-") != 0)
        cp_devlist_print(&devs, stdout);
    if (json_path) {
        cJSON *root = cJSON_CreateObject();
        cJSON *prov = cp_provenance_json("");
        cJSON *list = cp_devlist_json(&devs);
        if (!root || !prov || !list) {
            cJSON_Delete(root);
            cJSON_Delete(prov);
            cJSON_Delete(list);
            st = cli_fail("devices", CP_FAIL_RUNTIME, "out of memory building JSON");
            goto out;
        }
        cJSON_AddNumberToObject(root, "schema", 1);
        cJSON_AddItemToObject(root, "provenance", prov);
        cJSON_AddItemToObject(root, "devices", list);
        st = cli_write_json("devices", NULL, json_path, root);
    }
out:
    cp_devlist_free(&devs);
    return st;
}
