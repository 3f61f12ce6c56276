/*
 * A body filter that takes a key subrequest's answer (marked by its capture
 * context, ngx_http_jwtk_capture_t) into worker memory, up to 16 MiB (the key
 * set limit; beyond it the answer is refused, whatever nginx's buffers), and
 * passes nothing on: the client never sees it. Every other response goes
 * straight to the next filter.
 *
 * Not nginx's in-memory subrequests: those end the client's connection
 * without an answer when a body outgrows subrequest_output_buffer_size.
 * Installed only when some level has a key subrequest: no filter cost
 * otherwise.
 */
#include "ngx_http_jwtk_module.h"

static void ngx_http_jwtk_free_capture(void *data);

static ngx_http_output_body_filter_pt ngx_http_jwtk_next_body_filter;


/* Marks the subrequest `sr` as a key subrequest: its body is captured. */
ngx_int_t
ngx_http_jwtk_capture(ngx_http_request_t *sr)
{
    ngx_http_jwtk_capture_t  *cap;
    ngx_pool_cleanup_t       *cln;

    cap = ngx_pcalloc(sr->pool, sizeof(ngx_http_jwtk_capture_t));
    cln = ngx_pool_cleanup_add(sr->pool, 0);
    if (cap == NULL || cln == NULL) {
        ngx_log_error(NGX_LOG_ERR, sr->connection->log, 0,
                      "jwtk: no memory for a key subrequest's capture");
        return NGX_ERROR;
    }

    cln->handler = ngx_http_jwtk_free_capture;
    cln->data = cap;
    ngx_http_set_ctx(sr, cap, ngx_http_jwtk_module);

    return NGX_OK;
}


static void
ngx_http_jwtk_free_capture(void *data)
{
    ngx_http_jwtk_capture_t  *cap = data;

    if (cap->body != NULL) {
        ngx_free(cap->body);
        cap->body = NULL;
    }
}


static ngx_int_t
ngx_http_jwtk_capture_body(ngx_http_request_t *r, ngx_chain_t *in)
{
    ngx_http_jwtk_capture_t  *cap;
    ngx_chain_t              *cl;
    ngx_buf_t                *b;
    off_t                     size;
    size_t                    want, grow;
    u_char                   *grown;
    ssize_t                   n;

    /* Only subrequests carry this module's context: the request's own
     * context (ngx_http_jwtk_ctx_t) is on r->main. */
    if (r == r->main) {
        return ngx_http_jwtk_next_body_filter(r, in);
    }

    cap = ngx_http_get_module_ctx(r, ngx_http_jwtk_module);
    if (cap == NULL) {
        return ngx_http_jwtk_next_body_filter(r, in);
    }

    for (cl = in; cl != NULL; cl = cl->next) {
        b = cl->buf;
        size = ngx_buf_special(b) ? 0 : ngx_buf_size(b);

        if (size > 0 && !cap->too_big) {

            if (size > NGX_HTTP_JWTK_MAX_KEY_FILE - (off_t) cap->len) {
                cap->too_big = 1;

            } else {
                want = cap->len + (size_t) size;

                if (want > cap->size) {
                    grow = ngx_max(want, 2 * cap->size);
                    grown = ngx_alloc(grow, r->connection->log);
                    if (grown == NULL) {
                        return NGX_ERROR;
                    }

                    if (cap->body != NULL) {
                        ngx_memcpy(grown, cap->body, cap->len);
                        ngx_free(cap->body);
                    }

                    cap->body = grown;
                    cap->size = grow;
                }

                if (ngx_buf_in_memory(b)) {
                    ngx_memcpy(cap->body + cap->len, b->pos, (size_t) size);

                } else {
                    n = ngx_read_file(b->file, cap->body + cap->len,
                                      (size_t) size, b->file_pos);
                    if (n != (ssize_t) size) {
                        return NGX_ERROR;
                    }
                }

                cap->len = want;
            }
        }

        /* Consumed, so the producer (upstream, static file) reuses or
         * frees its buffers. */
        if (ngx_buf_in_memory(b)) {
            b->pos = b->last;
        }

        if (b->in_file) {
            b->file_pos = b->file_last;
        }
    }

    return NGX_OK;
}


ngx_int_t
ngx_http_jwtk_init_capture(void)
{
    ngx_http_jwtk_next_body_filter = ngx_http_top_body_filter;
    ngx_http_top_body_filter = ngx_http_jwtk_capture_body;

    return NGX_OK;
}
