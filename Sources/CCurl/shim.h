#ifndef JKERNEL_CCURL_SHIM_H
#define JKERNEL_CCURL_SHIM_H
/* libcurl (Debian libcurl4-openssl-dev: the same OpenSSL the kernel uses).
   curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
   call: each typed wrapper below passes exactly one argument of the type the
   option documents, so the variadic call is well-formed C. */
#include <curl/curl.h>

typedef size_t (*jkernel_curl_data_fn)(char *data, size_t size, size_t count, void *context);

static inline CURLcode jkernel_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

static inline CURLcode jkernel_curl_set_long(CURL *h, CURLoption option, long value) {
    return curl_easy_setopt(h, option, value);
}
static inline CURLcode jkernel_curl_set_off_t(CURL *h, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(h, option, value);
}
static inline CURLcode jkernel_curl_set_string(CURL *h, CURLoption option, const char *value) {
    return curl_easy_setopt(h, option, value);
}
static inline CURLcode jkernel_curl_set_pointer(CURL *h, CURLoption option, void *value) {
    return curl_easy_setopt(h, option, value);
}
static inline CURLcode jkernel_curl_set_slist(CURL *h, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(h, option, value);
}
static inline CURLcode jkernel_curl_set_data_function(CURL *h, CURLoption option, jkernel_curl_data_fn value) {
    return curl_easy_setopt(h, option, value);
}

static inline CURLcode jkernel_curl_get_long(CURL *h, CURLINFO info, long *value) {
    return curl_easy_getinfo(h, info, value);
}
/* The string stays owned by the handle: valid until the next transfer or cleanup. */
static inline CURLcode jkernel_curl_get_string(CURL *h, CURLINFO info, char **value) {
    return curl_easy_getinfo(h, info, value);
}
#endif
