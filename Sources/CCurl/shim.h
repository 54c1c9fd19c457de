#ifndef MAILTO_ROUTE_CCURL_SHIM_H
#define MAILTO_ROUTE_CCURL_SHIM_H

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>

/* libcurl is opened with dlopen the first time a message is sent, never at start-up:
 * linking it costs about 12 ms of loading (OpenSSL, nghttp2, ...) on every click, and
 * the handoff path does not need it. The API table below holds the entry points that
 * SMTPTransport uses; the typed setopt/getinfo helpers replace the variadic calls,
 * which Swift cannot make. */

typedef CURLcode (*mr_curl_setopt_fn)(CURL *, CURLoption, ...);
typedef CURLcode (*mr_curl_getinfo_fn)(CURL *, CURLINFO, ...);

typedef struct mr_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    mr_curl_setopt_fn easy_setopt;
    void (*easy_cleanup)(CURL *handle);
    mr_curl_getinfo_fn easy_getinfo;
    const char *(*easy_strerror)(CURLcode code);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *string);
    void (*slist_free_all)(struct curl_slist *list);
    curl_version_info_data *(*version_info)(CURLversion age);
    /* The multi interface, which drives each transfer (CurlEasy.perform): libcurl's own
     * curl_easy_perform wakes at most once a second while it waits for a reply, so a
     * limit on waiting could not be kept to better than a second. */
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *multi);
    CURLMcode (*multi_add_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_remove_handle)(CURLM *multi, CURL *handle);
    CURLMcode (*multi_perform)(CURLM *multi, int *running);
    CURLMcode (*multi_poll)(CURLM *multi, struct curl_waitfd *extra, unsigned int count, int timeout_ms, int *ready);
    CURLMsg *(*multi_info_read)(CURLM *multi, int *queued);
    /* An IMAP dialogue of mailto-route's own on a connection libcurl opened, secured and
     * logged in (CURLOPT_CONNECT_ONLY; IMAPDraftStore): curl_easy_perform opens it (the
     * multi interface closes a connect-only connection when its handle leaves it), then
     * curl_easy_send and curl_easy_recv (7.18.1+) carry the bytes. */
    CURLcode (*easy_perform)(CURL *handle);
    CURLcode (*easy_send)(CURL *handle, const void *buffer, size_t length, size_t *sent);
    CURLcode (*easy_recv)(CURL *handle, void *buffer, size_t length, size_t *received);
    /* 7.68+, and optional (NULL when older): wakes curl_multi_poll from another thread,
     * so that a person's Stop (SendStop) is seen at once rather than within a second. */
    CURLMcode (*multi_wakeup)(CURLM *multi);
} mr_curl_api;

/* Fills `api` from the libcurl that the system has. Returns NULL on success, else
 * dlerror()'s text (owned by the C library, valid until the next dl* call). */
static inline const char *mr_curl_load(mr_curl_api *api) {
    /* libcurl pulls in some thirty libraries (OpenSSL, GnuTLS via librtmp, Kerberos,
     * LDAP...), and resolving their symbols is most of a send's time on loopback.
     * RTLD_LAZY: binding everything up front costs about 0.6 ms more, and every entry
     * point used here is checked with dlsym below. RTLD_DEEPBIND: look symbols up in
     * libcurl's own dependencies before the global scope, which here holds GIO, GLib and
     * the Swift runtime's imports and made each lookup walk them first (about 0.5 ms).
     * Safe here: no memory crosses between the two scopes' allocators (curl frees its
     * own lists; its strings are static). */
    void *lib = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL | RTLD_DEEPBIND);
    if (lib == NULL) return dlerror();
#define MR_SYM(field, name) \
    do { *(void **)(&api->field) = dlsym(lib, name); if (api->field == NULL) return dlerror(); } while (0)
    MR_SYM(global_init, "curl_global_init");
    MR_SYM(easy_init, "curl_easy_init");
    MR_SYM(easy_setopt, "curl_easy_setopt");
    MR_SYM(easy_cleanup, "curl_easy_cleanup");
    MR_SYM(easy_getinfo, "curl_easy_getinfo");
    MR_SYM(easy_strerror, "curl_easy_strerror");
    MR_SYM(slist_append, "curl_slist_append");
    MR_SYM(slist_free_all, "curl_slist_free_all");
    MR_SYM(version_info, "curl_version_info");
    MR_SYM(multi_init, "curl_multi_init");
    MR_SYM(multi_cleanup, "curl_multi_cleanup");
    MR_SYM(multi_add_handle, "curl_multi_add_handle");
    MR_SYM(multi_remove_handle, "curl_multi_remove_handle");
    MR_SYM(multi_perform, "curl_multi_perform");
    /* 7.66+ */
    MR_SYM(multi_poll, "curl_multi_poll");
    MR_SYM(multi_info_read, "curl_multi_info_read");
    MR_SYM(easy_perform, "curl_easy_perform");
    MR_SYM(easy_send, "curl_easy_send");
    MR_SYM(easy_recv, "curl_easy_recv");
    *(void **)(&api->multi_wakeup) = dlsym(lib, "curl_multi_wakeup");
#undef MR_SYM
    return NULL;
}

/* Macros that do not import into Swift. */
static inline CURLversion mr_curl_version_now(void) { return CURLVERSION_NOW; }
static inline long mr_curl_global_default(void) { return CURL_GLOBAL_DEFAULT; }
static inline size_t mr_curl_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
static inline long mr_curl_use_ssl_all(void) { return CURLUSESSL_ALL; }
static inline long mr_curl_proto_smtp_smtps(void) { return CURLPROTO_SMTP | CURLPROTO_SMTPS; }
static inline long mr_curl_proto_https(void) { return CURLPROTO_HTTPS; }
static inline long mr_curl_proto_imap_imaps(void) { return CURLPROTO_IMAP | CURLPROTO_IMAPS; }
/* Spelled CURLOPT_MAIL_RCPT_ALLLOWFAILS in the 7.88 headers, CURLOPT_MAIL_RCPT_ALLOWFAILS
 * from 8.2: the number (7.69+) is what the library reads. */
static inline CURLoption mr_curlopt_mail_rcpt_allowfails(void) { return (CURLoption)(CURLOPTTYPE_LONG + 290); }
/* CURLOPT_PROTOCOLS_STR (7.85+), named by number so that older headers build too. */
static inline CURLoption mr_curlopt_protocols_str(void) { return (CURLoption)(CURLOPTTYPE_STRINGPOINT + 318); }
static inline CURLoption mr_curlopt_protocols(void) { return (CURLoption)(CURLOPTTYPE_LONG + 181); }

static inline CURLcode mr_curl_setopt_long(const mr_curl_api *api, CURL *h, CURLoption opt, long value) {
    return api->easy_setopt(h, opt, value);
}
static inline CURLcode mr_curl_setopt_off_t(const mr_curl_api *api, CURL *h, CURLoption opt, curl_off_t value) {
    return api->easy_setopt(h, opt, value);
}
static inline CURLcode mr_curl_setopt_string(const mr_curl_api *api, CURL *h, CURLoption opt, const char *value) {
    return api->easy_setopt(h, opt, value);
}
static inline CURLcode mr_curl_setopt_slist(const mr_curl_api *api, CURL *h, CURLoption opt, struct curl_slist *value) {
    return api->easy_setopt(h, opt, value);
}
static inline CURLcode mr_curl_setopt_pointer(const mr_curl_api *api, CURL *h, CURLoption opt, void *value) {
    return api->easy_setopt(h, opt, value);
}
static inline CURLcode mr_curl_setopt_read_callback(const mr_curl_api *api, CURL *h,
        size_t (*callback)(char *buffer, size_t size, size_t count, void *userdata)) {
    return api->easy_setopt(h, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode mr_curl_setopt_write_callback(const mr_curl_api *api, CURL *h,
        size_t (*callback)(char *buffer, size_t size, size_t count, void *userdata)) {
    return api->easy_setopt(h, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode mr_curl_setopt_debug_callback(const mr_curl_api *api, CURL *h,
        int (*callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *userdata)) {
    return api->easy_setopt(h, CURLOPT_DEBUGFUNCTION, callback);
}
static inline CURLcode mr_curl_setopt_xferinfo_callback(const mr_curl_api *api, CURL *h,
        int (*callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)) {
    return api->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline CURLcode mr_curl_getinfo_socket(const mr_curl_api *api, CURL *h, curl_socket_t *value) {
    return api->easy_getinfo(h, CURLINFO_ACTIVESOCKET, value);
}

/* The result of a finished transfer (CURLMSG_DONE): a member of an anonymous union. */
static inline CURLcode mr_curl_msg_result(const CURLMsg *message) { return message->data.result; }

static inline CURLcode mr_curl_getinfo_long(const mr_curl_api *api, CURL *h, CURLINFO info, long *value) {
    return api->easy_getinfo(h, info, value);
}

#endif
