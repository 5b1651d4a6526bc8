/* The header of a .npy file: its format as np.save() writes it (cp_npy_write's, npy.c), the
 * check that a file is one that it wrote (owned.c's cp_output_check), and its dict, a Python dict
 * literal, parsed by hand, strictly and within its bounds (npy.c reads the file around it). */
#include "npy-header-impl.h"
#include "clparity/error.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cp_dtype_descr(enum cp_dtype t)
{
    switch (t) {
    case CP_F32:
        return "<f4";
    case CP_F64:
        return "<f8";
    case CP_I32:
        return "<i4";
    case CP_I64:
        return "<i8";
    }
    return "?";
}

size_t cp_dtype_size(enum cp_dtype t)
{
    switch (t) {
    case CP_F32:
    case CP_I32:
        return 4;
    case CP_F64:
    case CP_I64:
        return 8;
    }
    return 0;
}

static int append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (*len >= cap)
        return -1;
    va_start(ap, fmt);
    n = vsnprintf(buf + *len, cap - *len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= cap - *len)
        return -1;
    *len += (size_t)n;
    return 0;
}

static int append_spaces(char *buf, size_t cap, size_t *len, size_t n)
{
    if (n > cap - *len)
        return -1;
    memset(buf + *len, ' ', n);
    *len += n;
    return 0;
}

/*
 * Formats the preamble and header exactly as numpy 1.24's np.save() does, so that files are
 * byte-for-byte comparable: keys sorted, the shape as Python's tuple repr, then spare spaces
 * for 21 digits of shape[0] (numpy leaves them so that the array can grow in place), then
 * padding to a 64-byte boundary and '\n'. Like numpy, a header that would already end on the
 * boundary still gets a full 64 bytes of padding. Returns the total length, 0 if buf is small.
 */
size_t npy_format_header(char *buf, size_t cap, enum cp_dtype t, int ndim, const size_t *shape)
{
    size_t len = 10; /* magic, version, header length: filled in at the end */
    size_t start, hlen, pad;

    if (cap < len)
        return 0;
    start = len;
    if (append(buf, cap, &len, "{'descr': '%s', 'fortran_order': False, 'shape': (",
               cp_dtype_descr(t)) != 0)
        return 0;
    for (int i = 0; i < ndim; i++) {
        const char *sep = ndim == 1 ? "," : i + 1 < ndim ? ", " : "";

        if (append(buf, cap, &len, "%zu%s", shape[i], sep) != 0)
            return 0;
    }
    if (append(buf, cap, &len, "), }") != 0)
        return 0;
    if (ndim > 0) {
        char digits[32];
        int nd = snprintf(digits, sizeof(digits), "%zu", shape[0]);

        if (nd < 0 || append_spaces(buf, cap, &len, NPY_GROWTH_DIGITS - (size_t)nd) != 0)
            return 0;
    }
    pad = NPY_ALIGN - (len + 1) % NPY_ALIGN;
    if (append_spaces(buf, cap, &len, pad) != 0 || len >= cap)
        return 0;
    buf[len++] = '\n';

    hlen = len - start;
    if (hlen > UINT16_MAX)
        return 0;
    memcpy(buf, npy_magic, NPY_MAGIC_LEN);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    return len;
}

bool cp_npy_header_is_own(const void *head, size_t n, unsigned long long file_size)
{
    /* The header's text is parsed loosely (dtype and shape), then formatted again as this
     * writer would and compared byte for byte: any other header, or a file of another length,
     * is not one that cp_npy_write wrote. */
    const char *h = head;
    char text[NPY_HEADER_CAP + 1];
    size_t tn = n < NPY_HEADER_CAP ? n : NPY_HEADER_CAP;
    if (n < 10 || memcmp(h, npy_magic, NPY_MAGIC_LEN) != 0)
        return false;
    memcpy(text, h, tn);
    text[tn] = '\0';
    for (size_t i = 0; i < tn; ++i)
        if (text[i] == '\0')
            text[i] = ' ';
    static const enum cp_dtype types[] = {CP_F32, CP_F64, CP_I32, CP_I64};
    const char *d = strstr(text + 10, "'descr': '");
    const char *sh = strstr(text + 10, "'shape': (");
    if (!d || !sh)
        return false;
    d += strlen("'descr': '");
    enum cp_dtype t = CP_F32;
    bool known = false;
    for (size_t i = 0; !known && i < sizeof types / sizeof *types; ++i)
        if (strncmp(d, cp_dtype_descr(types[i]), 3) == 0 && d[3] == '\'') {
            t = types[i];
            known = true;
        }
    size_t shape[CP_NPY_MAX_DIMS];
    int ndim = 0;
    const char *p = sh + strlen("'shape': (");
    while (known && *p != ')') {
        char *end;
        if (ndim == CP_NPY_MAX_DIMS || *p < '0' || *p > '9')
            return false;
        unsigned long long v = strtoull(p, &end, 10);
        shape[ndim++] = (size_t)v;
        p = end;
        if (*p == ',')
            ++p;
        if (*p == ' ')
            ++p;
    }
    char want[NPY_HEADER_CAP];
    size_t wn = known ? npy_format_header(want, sizeof want, t, ndim, shape) : 0;
    size_t count;
    if (wn == 0 || wn > n || memcmp(want, h, wn) != 0 ||
        !shape_count(ndim, shape, cp_dtype_size(t), &count))
        return false;
    return file_size == (unsigned long long)wn + (unsigned long long)count * cp_dtype_size(t);
}

struct hdr_parser {
    const char *path;
    const char *start, *p, *end;
};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || is_digit(c);
}

/*
 * Copies untrusted header text into a message: printable ASCII as is, anything else as \xNN,
 * cut at the buffer's end with "...".
 */
static const char *sanitize(char *dst, size_t cap, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (o + 8 >= cap) {
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            dst[o++] = (char)c;
        } else {
            dst[o++] = '\\';
            dst[o++] = 'x';
            dst[o++] = hex[c >> 4];
            dst[o++] = hex[c & 15];
        }
    }
    dst[o] = '\0';
    return dst;
}

static int malformed(const struct hdr_parser *ps, const char *what)
{
    return cp_err_set(CP_FAIL_USAGE, "%s: malformed header: %s at byte %td of the header", ps->path,
                      what, ps->p - ps->start);
}

static void skip_space(struct hdr_parser *ps)
{
    while (ps->p < ps->end && is_space(*ps->p))
        ps->p++;
}

/* Consumes c after optional white space. */
static int accept(struct hdr_parser *ps, char c)
{
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

/*
 * A Python string literal in single or double quotes. Escapes are refused rather than decoded:
 * no key or accepted dtype needs one.
 */
static int parse_string(struct hdr_parser *ps, const char **s, size_t *n)
{
    char q;

    skip_space(ps);
    if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
        return 0;
    q = *ps->p++;
    *s = ps->p;
    while (ps->p < ps->end && *ps->p != q) {
        if (*ps->p == '\\' || *ps->p == '\n')
            return 0;
        ps->p++;
    }
    if (ps->p >= ps->end)
        return 0;
    *n = (size_t)(ps->p - *s);
    ps->p++;
    return 1;
}

static int parse_ident(struct hdr_parser *ps, const char **s, size_t *n)
{
    skip_space(ps);
    *s = ps->p;
    while (ps->p < ps->end && is_ident(*ps->p))
        ps->p++;
    *n = (size_t)(ps->p - *s);
    return *n > 0;
}

static int equals(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* A non-negative decimal integer, with the 'L' that Python 2 numpy wrote after longs. */
static int parse_dim(struct hdr_parser *ps, size_t *v)
{
    size_t x = 0;

    skip_space(ps);
    if (ps->p >= ps->end || !is_digit(*ps->p))
        return malformed(ps, "expected a non-negative integer in the shape");
    while (ps->p < ps->end && is_digit(*ps->p)) {
        size_t d = (size_t)(*ps->p - '0');

        if (x > (SIZE_MAX - d) / 10)
            return cp_err_set(CP_FAIL_USAGE, "%s: shape dimension overflows size_t", ps->path);
        x = x * 10 + d;
        ps->p++;
    }
    if (ps->p < ps->end && (*ps->p == 'L' || *ps->p == 'l'))
        ps->p++;
    *v = x;
    return CP_OK;
}

static int parse_shape(struct hdr_parser *ps, cp_npy *a)
{
    int n = 0;
    int trailing_comma = 0;
    int ret;

    if (!accept(ps, '('))
        return malformed(ps, "shape is not a tuple");
    if (accept(ps, ')'))
        goto done;
    for (;;) {
        size_t v = 0;

        if (n == CP_NPY_MAX_DIMS)
            return cp_err_set(CP_FAIL_USAGE, "%s: too many dimensions (more than %d)", ps->path,
                              CP_NPY_MAX_DIMS);
        ret = parse_dim(ps, &v);
        if (ret != CP_OK)
            return ret;
        a->shape[n++] = v;
        if (accept(ps, ',')) {
            if (accept(ps, ')')) {
                trailing_comma = 1;
                break;
            }
            continue;
        }
        if (accept(ps, ')'))
            break;
        return malformed(ps, "expected ',' or ')' in the shape");
    }
    /* "(5)" is the integer 5 in Python, not a tuple: numpy itself refuses it. */
    if (n == 1 && !trailing_comma)
        return malformed(ps, "shape is not a tuple (a 1-d shape needs a trailing comma)");
done:
    a->ndim = n;
    return CP_OK;
}

/*
 * The accepted descrs: '<f4' '<f8' '<i4' '<i8'. The native-order spellings ('f4', '=f4', and
 * '|f4', which numpy treats as native for multi-byte types) mean the same thing on a
 * little-endian host and are accepted there.
 */
static int parse_dtype(const char *path, const char *s, size_t n, enum cp_dtype *t)
{
    char shown[64];
    const char *d = s;
    size_t dn = n;

    if (dn > 0 && (d[0] == '<' || ((d[0] == '=' || d[0] == '|') && host_is_little_endian()))) {
        d++;
        dn--;
    } else if (dn > 0 && !host_is_little_endian()) {
        dn = 0; /* a bare 'f4' would be big-endian here */
    }
    if (equals(d, dn, "f4"))
        *t = CP_F32;
    else if (equals(d, dn, "f8"))
        *t = CP_F64;
    else if (equals(d, dn, "i4"))
        *t = CP_I32;
    else if (equals(d, dn, "i8"))
        *t = CP_I64;
    else
        return cp_err_set(CP_FAIL_USAGE, "%s: unsupported dtype '%s'%s", path,
                          sanitize(shown, sizeof(shown), s, n),
                          n > 0 && s[0] == '>' ? " (big-endian)" : "");
    return CP_OK;
}

/*
 * The header is a Python dict literal with the keys 'descr', 'fortran_order' and 'shape' in
 * any order, an optional trailing comma and white space anywhere. This is the whole grammar
 * numpy writes, so it is parsed by hand instead of evaluating Python.
 */
int cp_npy_header_parse(const char *path, const char *hdr, size_t len, cp_npy *a)
{
    struct hdr_parser ps = {path, hdr, hdr, hdr + len};
    const char *descr = NULL;
    size_t descr_len = 0;
    int have_order = 0, have_shape = 0, fortran = 0;
    int ret;

    if (!accept(&ps, '{'))
        return malformed(&ps, "expected '{'");
    if (accept(&ps, '}'))
        goto end;
    for (;;) {
        const char *key, *val;
        size_t key_len, val_len;
        char shown[64];

        if (!parse_string(&ps, &key, &key_len))
            return malformed(&ps, "expected a quoted key");
        if (!accept(&ps, ':'))
            return malformed(&ps, "expected ':'");
        if (equals(key, key_len, "descr")) {
            if (descr)
                return malformed(&ps, "duplicate key 'descr'");
            if (!parse_string(&ps, &descr, &descr_len))
                return cp_err_set(CP_FAIL_USAGE,
                                  "%s: unsupported dtype (descr is not a simple type string)",
                                  path);
        } else if (equals(key, key_len, "fortran_order")) {
            if (have_order)
                return malformed(&ps, "duplicate key 'fortran_order'");
            have_order = 1;
            if (!parse_ident(&ps, &val, &val_len))
                return malformed(&ps, "fortran_order is not True or False");
            if (equals(val, val_len, "True"))
                fortran = 1;
            else if (!equals(val, val_len, "False"))
                return malformed(&ps, "fortran_order is not True or False");
        } else if (equals(key, key_len, "shape")) {
            if (have_shape)
                return malformed(&ps, "duplicate key 'shape'");
            have_shape = 1;
            ret = parse_shape(&ps, a);
            if (ret != CP_OK)
                return ret;
        } else {
            return cp_err_set(CP_FAIL_USAGE, "%s: malformed header: unexpected key '%s'", path,
                              sanitize(shown, sizeof(shown), key, key_len));
        }
        if (accept(&ps, ',')) {
            if (accept(&ps, '}'))
                break;
            continue;
        }
        if (accept(&ps, '}'))
            break;
        return malformed(&ps, "expected ',' or '}'");
    }
end:
    skip_space(&ps);
    if (ps.p != ps.end)
        return malformed(&ps, "unexpected text after the dict");
    if (!descr)
        return cp_err_set(CP_FAIL_USAGE, "%s: malformed header: no 'descr'", path);
    if (!have_order)
        return cp_err_set(CP_FAIL_USAGE, "%s: malformed header: no 'fortran_order'", path);
    if (!have_shape)
        return cp_err_set(CP_FAIL_USAGE, "%s: malformed header: no 'shape'", path);
    ret = parse_dtype(path, descr, descr_len, &a->dtype);
    if (ret != CP_OK)
        return ret;
    if (fortran)
        return cp_err_set(CP_FAIL_USAGE, "%s: not C-ordered (fortran_order is True)", path);
    return CP_OK;
}
