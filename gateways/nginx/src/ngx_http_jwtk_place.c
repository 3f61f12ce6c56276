/*
 * Where a directive was written, for errors found after it was parsed.
 *
 * Key files are read and the verifier is built when locations are merged,
 * after nginx has left the directive's file: ngx_conf_log_error would then
 * name the place where parsing stands (the end of "http" in the main file),
 * not the directive. So the directive handler records its own file and line,
 * and the later errors are logged with them, in ngx_conf_log_error's form
 * ("... in FILE:LINE").
 */
#include "ngx_http_jwtk_module.h"


/* Records the place of the directive being parsed (the name is copied: an
 * included file's name does not outlive its parsing). */
ngx_int_t
ngx_http_jwtk_place_here(ngx_conf_t *cf, ngx_http_jwtk_place_t *place)
{
    ngx_str_t  name;

    ngx_memzero(place, sizeof(ngx_http_jwtk_place_t));

    if (cf->conf_file == NULL || cf->conf_file->file.fd == NGX_INVALID_FILE) {
        return NGX_OK;      /* "-g" on the command line: no file */
    }

    name.len = cf->conf_file->file.name.len;
    name.data = cf->conf_file->file.name.data;

    /* NUL-terminated, so it prints with "%s" as nginx's own lines do */
    place->file.data = ngx_pnalloc(cf->pool, name.len + 1);
    if (place->file.data == NULL) {
        return NGX_ERROR;
    }

    ngx_memcpy(place->file.data, name.data, name.len);
    place->file.data[name.len] = '\0';
    place->file.len = name.len;
    place->line = cf->conf_file->line;

    return NGX_OK;
}


/* ngx_conf_log_error, at the recorded place (or where parsing stands when
 * nothing was recorded). */
void ngx_cdecl
ngx_http_jwtk_place_error(ngx_uint_t level, ngx_conf_t *cf,
    ngx_http_jwtk_place_t *place, ngx_err_t err, const char *fmt, ...)
{
    u_char   errstr[NGX_MAX_CONF_ERRSTR], *p, *last;
    va_list  args;

    last = errstr + NGX_MAX_CONF_ERRSTR;

    va_start(args, fmt);
    p = ngx_vslprintf(errstr, last, fmt, args);
    va_end(args);

    if (place == NULL || place->file.len == 0) {
        ngx_conf_log_error(level, cf, err, "%*s", p - errstr, errstr);
        return;
    }

    if (err) {
        p = ngx_log_errno(p, last, err);
    }

    ngx_log_error(level, cf->log, 0, "%*s in %s:%ui",
                  p - errstr, errstr, place->file.data, place->line);
}
