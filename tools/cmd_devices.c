/* clparity devices: clinfo -l's shape, with the properties that decide exactness. */
#include "cli.h"
#include "cmds.h"

#include "clparity/report.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <string.h>
#include <stdio.h>

static void devices_help(void)
{
    printf("usage: clparity devices [--json FILE]\n"
           "\n"
           "Lists every OpenCL platform and device that the ICD loader finds, in clinfo -l's\n"
           "order and indices (Platform #P, Device #D: the P:D of a -d selector), with type,\n"
           "compute units, clock, global and max-alloc memory, OpenCL C and driver versions\n"
           "and the FP32 config; then a `host` row with OpenBLAS's version, core and threads.\n"
           "A simulator (Oclgrind) is marked: it is left out of the default selection.\n"
           "\n"
           "  --json FILE   write the list as JSON ('-' for stdout), with provenance\n"
           "  --version     print the version and exit\n"
           "  -h, --help    print this help and exit\n");
}

int cmd_devices(int argc, char **argv)
{
    static const struct option opts[] = {{"json", required_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {"version", no_argument, NULL, 'V'},
                                         {NULL, 0, NULL, 0}};
    const char *json_path = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json_path = optarg;
            break;
        case 'h':
            devices_help();
            return CP_OK;
        case 'V':
            cli_print_version();
            return CP_OK;
        case ':':
            return cli_fail("devices", CP_FAIL_USAGE, "option %s needs a value", argv[optind - 1]);
        default:
            return cli_fail("devices", CP_FAIL_USAGE, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_fail("devices", CP_FAIL_USAGE, "unexpected argument '%s'", argv[optind]);
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
        st = cp_json_write(json_path, root);
        cJSON_Delete(root);
        if (st != CP_OK)
            cli_fail("devices", st, "%s", cp_err_msg());
    }
out:
    cp_devlist_free(&devs);
    return st;
}
