/*
 * Envoy dynamic modules ABI: an excerpt of source/extensions/dynamic_modules/abi/abi.h of Envoy
 * (https://github.com/envoyproxy/envoy), commit 0199da4a13cb999df12ad32db7d03942cfbf9abb, whose
 * ENVOY_DYNAMIC_MODULES_ABI_VERSION is "v0.1.0".
 *
 * Copyright The Envoy Project Authors. Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License. You may obtain a copy of the License
 * at http://www.apache.org/licenses/LICENSE-2.0 (also the LICENSE file at the top of this repository).
 * Unless required by applicable law or agreed to in writing, software distributed under the License is
 * distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or
 * implied. See the License for the specific language governing permissions and limitations under the
 * License.
 *
 * Changes made here (jwt-kernel): only the types, event hooks and callbacks that gateways/envoy/jwtk_envoy.c
 * implements or calls are kept, copied declaration for declaration (names, parameter types and order,
 * enum member order unchanged); Envoy's doc comments are shortened; the C++ branch and the weak
 * `envoy_dynamic_modules_abi_version` variable are dropped. The upstream file is 731,699 bytes and covers
 * every kind of module (network, listener, cluster, bootstrap, ...); see gateways/envoy/abi/README.md for
 * the version facts (Envoy 1.40.0 itself reports ABI "v0.2.0" and accepts "v0.1.0" modules with a
 * deprecation warning) and for how to refresh this excerpt. One declaration at the end,
 * envoy_dynamic_module_callback_http_set_dynamic_metadata_struct, is not from that header (it is newer):
 * its comment says where it comes from.
 */
#pragma once

#define ENVOY_DYNAMIC_MODULES_ABI_VERSION "v0.1.0"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ==================================== Common types ==================================== */

typedef const char* envoy_dynamic_module_type_abi_version_module_ptr;
typedef const char* envoy_dynamic_module_type_buffer_module_ptr;
typedef const char* envoy_dynamic_module_type_buffer_envoy_ptr;

typedef struct envoy_dynamic_module_type_envoy_buffer {
  envoy_dynamic_module_type_buffer_envoy_ptr ptr;
  size_t length;
} envoy_dynamic_module_type_envoy_buffer;

typedef struct envoy_dynamic_module_type_module_buffer {
  envoy_dynamic_module_type_buffer_module_ptr ptr;
  size_t length;
} envoy_dynamic_module_type_module_buffer;

typedef struct envoy_dynamic_module_type_module_http_header {
  envoy_dynamic_module_type_buffer_module_ptr key_ptr;
  size_t key_length;
  envoy_dynamic_module_type_buffer_module_ptr value_ptr;
  size_t value_length;
} envoy_dynamic_module_type_module_http_header;

typedef struct envoy_dynamic_module_type_envoy_http_header {
  envoy_dynamic_module_type_buffer_envoy_ptr key_ptr;
  size_t key_length;
  envoy_dynamic_module_type_buffer_envoy_ptr value_ptr;
  size_t value_length;
} envoy_dynamic_module_type_envoy_http_header;

typedef enum envoy_dynamic_module_type_http_header_type {
  envoy_dynamic_module_type_http_header_type_RequestHeader,
  envoy_dynamic_module_type_http_header_type_RequestTrailer,
  envoy_dynamic_module_type_http_header_type_ResponseHeader,
  envoy_dynamic_module_type_http_header_type_ResponseTrailer,
} envoy_dynamic_module_type_http_header_type;

typedef enum envoy_dynamic_module_type_log_level {
  envoy_dynamic_module_type_log_level_Trace,
  envoy_dynamic_module_type_log_level_Debug,
  envoy_dynamic_module_type_log_level_Info,
  envoy_dynamic_module_type_log_level_Warn,
  envoy_dynamic_module_type_log_level_Error,
  envoy_dynamic_module_type_log_level_Critical,
  envoy_dynamic_module_type_log_level_Off,
} envoy_dynamic_module_type_log_level;

typedef enum envoy_dynamic_module_type_http_callout_result {
  envoy_dynamic_module_type_http_callout_result_Success,
  envoy_dynamic_module_type_http_callout_result_Reset,
  envoy_dynamic_module_type_http_callout_result_ExceedResponseBufferLimit,
} envoy_dynamic_module_type_http_callout_result;

typedef enum envoy_dynamic_module_type_http_stream_reset_reason {
  envoy_dynamic_module_type_http_stream_reset_reason_ConnectionFailure,
  envoy_dynamic_module_type_http_stream_reset_reason_ConnectionTermination,
  envoy_dynamic_module_type_http_stream_reset_reason_LocalReset,
  envoy_dynamic_module_type_http_stream_reset_reason_LocalRefusedStreamReset,
  envoy_dynamic_module_type_http_stream_reset_reason_Overflow,
  envoy_dynamic_module_type_http_stream_reset_reason_RemoteReset,
  envoy_dynamic_module_type_http_stream_reset_reason_RemoteRefusedStreamReset,
  envoy_dynamic_module_type_http_stream_reset_reason_ProtocolError,
} envoy_dynamic_module_type_http_stream_reset_reason;

typedef enum envoy_dynamic_module_type_metrics_result {
  envoy_dynamic_module_type_metrics_result_Success,
  envoy_dynamic_module_type_metrics_result_MetricNotFound,
  envoy_dynamic_module_type_metrics_result_InvalidLabels,
  envoy_dynamic_module_type_metrics_result_Frozen,
} envoy_dynamic_module_type_metrics_result;

/* ==================================== Common hooks and callbacks ==================================== */

/* Called on the main thread when the module is loaded; returns the ABI version the module was built
 * with, or NULL to refuse loading. */
envoy_dynamic_module_type_abi_version_module_ptr envoy_dynamic_module_on_program_init(void);

void envoy_dynamic_module_callback_log(envoy_dynamic_module_type_log_level level,
                                       envoy_dynamic_module_type_module_buffer message);
bool envoy_dynamic_module_callback_log_enabled(envoy_dynamic_module_type_log_level level);
/* Main thread only: true in `--mode validate`. */
bool envoy_dynamic_module_callback_is_validation_mode();

/* ==================================== HTTP filter types ==================================== */

typedef void* envoy_dynamic_module_type_http_filter_config_envoy_ptr;
typedef const void* envoy_dynamic_module_type_http_filter_config_module_ptr;
typedef void* envoy_dynamic_module_type_http_filter_envoy_ptr;
typedef const void* envoy_dynamic_module_type_http_filter_module_ptr;

typedef enum envoy_dynamic_module_type_on_http_filter_request_headers_status {
  envoy_dynamic_module_type_on_http_filter_request_headers_status_Continue,
  envoy_dynamic_module_type_on_http_filter_request_headers_status_StopIteration,
  envoy_dynamic_module_type_on_http_filter_request_headers_status_ContinueAndDontEndStream,
  envoy_dynamic_module_type_on_http_filter_request_headers_status_StopAllIterationAndBuffer,
  envoy_dynamic_module_type_on_http_filter_request_headers_status_StopAllIterationAndWatermark,
} envoy_dynamic_module_type_on_http_filter_request_headers_status;

typedef enum envoy_dynamic_module_type_on_http_filter_request_body_status {
  envoy_dynamic_module_type_on_http_filter_request_body_status_Continue,
  envoy_dynamic_module_type_on_http_filter_request_body_status_StopIterationAndBuffer,
  envoy_dynamic_module_type_on_http_filter_request_body_status_StopIterationAndWatermark,
  envoy_dynamic_module_type_on_http_filter_request_body_status_StopIterationNoBuffer
} envoy_dynamic_module_type_on_http_filter_request_body_status;

typedef enum envoy_dynamic_module_type_on_http_filter_request_trailers_status {
  envoy_dynamic_module_type_on_http_filter_request_trailers_status_Continue,
  envoy_dynamic_module_type_on_http_filter_request_trailers_status_StopIteration
} envoy_dynamic_module_type_on_http_filter_request_trailers_status;

typedef enum envoy_dynamic_module_type_on_http_filter_response_headers_status {
  envoy_dynamic_module_type_on_http_filter_response_headers_status_Continue,
  envoy_dynamic_module_type_on_http_filter_response_headers_status_StopIteration,
  envoy_dynamic_module_type_on_http_filter_response_headers_status_ContinueAndDontEndStream,
  envoy_dynamic_module_type_on_http_filter_response_headers_status_StopAllIterationAndBuffer,
  envoy_dynamic_module_type_on_http_filter_response_headers_status_StopAllIterationAndWatermark,
} envoy_dynamic_module_type_on_http_filter_response_headers_status;

typedef enum envoy_dynamic_module_type_on_http_filter_response_body_status {
  envoy_dynamic_module_type_on_http_filter_response_body_status_Continue,
  envoy_dynamic_module_type_on_http_filter_response_body_status_StopIterationAndBuffer,
  envoy_dynamic_module_type_on_http_filter_response_body_status_StopIterationAndWatermark,
  envoy_dynamic_module_type_on_http_filter_response_body_status_StopIterationNoBuffer
} envoy_dynamic_module_type_on_http_filter_response_body_status;

typedef enum envoy_dynamic_module_type_on_http_filter_response_trailers_status {
  envoy_dynamic_module_type_on_http_filter_response_trailers_status_Continue,
  envoy_dynamic_module_type_on_http_filter_response_trailers_status_StopIteration
} envoy_dynamic_module_type_on_http_filter_response_trailers_status;

/* ==================================== HTTP filter event hooks ==================================== */

/* Main thread: a filter configuration is loaded; NULL rejects the configuration. */
envoy_dynamic_module_type_http_filter_config_module_ptr
envoy_dynamic_module_on_http_filter_config_new(
    envoy_dynamic_module_type_http_filter_config_envoy_ptr filter_config_envoy_ptr,
    envoy_dynamic_module_type_envoy_buffer name, envoy_dynamic_module_type_envoy_buffer config);

void envoy_dynamic_module_on_http_filter_config_destroy(
    envoy_dynamic_module_type_http_filter_config_module_ptr filter_config_ptr);

/* Worker thread, one per HTTP stream; NULL closes the stream. */
envoy_dynamic_module_type_http_filter_module_ptr envoy_dynamic_module_on_http_filter_new(
    envoy_dynamic_module_type_http_filter_config_module_ptr filter_config_ptr,
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr);

envoy_dynamic_module_type_on_http_filter_request_headers_status
envoy_dynamic_module_on_http_filter_request_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, bool end_of_stream);

envoy_dynamic_module_type_on_http_filter_request_body_status
envoy_dynamic_module_on_http_filter_request_body(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, bool end_of_stream);

envoy_dynamic_module_type_on_http_filter_request_trailers_status
envoy_dynamic_module_on_http_filter_request_trailers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

envoy_dynamic_module_type_on_http_filter_response_headers_status
envoy_dynamic_module_on_http_filter_response_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, bool end_of_stream);

envoy_dynamic_module_type_on_http_filter_response_body_status
envoy_dynamic_module_on_http_filter_response_body(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, bool end_of_stream);

envoy_dynamic_module_type_on_http_filter_response_trailers_status
envoy_dynamic_module_on_http_filter_response_trailers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

void envoy_dynamic_module_on_http_filter_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

void envoy_dynamic_module_on_http_filter_destroy(
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

void envoy_dynamic_module_on_http_filter_http_callout_done(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t callout_id,
    envoy_dynamic_module_type_http_callout_result result,
    envoy_dynamic_module_type_envoy_http_header* headers, size_t headers_size,
    envoy_dynamic_module_type_envoy_buffer* body_chunks, size_t body_chunks_size);

void envoy_dynamic_module_on_http_filter_http_stream_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t stream_id,
    envoy_dynamic_module_type_envoy_http_header* headers, size_t headers_size, bool end_stream);

void envoy_dynamic_module_on_http_filter_http_stream_data(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t stream_id,
    const envoy_dynamic_module_type_envoy_buffer* data, size_t data_count, bool end_stream);

void envoy_dynamic_module_on_http_filter_http_stream_trailers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t stream_id,
    envoy_dynamic_module_type_envoy_http_header* trailers, size_t trailers_size);

void envoy_dynamic_module_on_http_filter_http_stream_complete(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t stream_id);

void envoy_dynamic_module_on_http_filter_http_stream_reset(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t stream_id,
    envoy_dynamic_module_type_http_stream_reset_reason reason);

void envoy_dynamic_module_on_http_filter_scheduled(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr, uint64_t event_id);

void envoy_dynamic_module_on_http_filter_downstream_above_write_buffer_high_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

void envoy_dynamic_module_on_http_filter_downstream_below_write_buffer_low_watermark(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_filter_module_ptr filter_module_ptr);

/* ==================================== HTTP filter callbacks ==================================== */

/* The index-th value of header `key` into *result_buffer (null buffer when absent); *optional_size (may
 * be NULL) gets the number of values. Buffers are Envoy's, valid until the end of the hook unless a
 * setter is called. */
bool envoy_dynamic_module_callback_http_get_header(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_header_type header_type,
    envoy_dynamic_module_type_module_buffer key,
    envoy_dynamic_module_type_envoy_buffer* result_buffer, size_t index, size_t* optional_size);

size_t envoy_dynamic_module_callback_http_get_headers_size(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_header_type header_type);

/* result_headers must hold get_headers_size entries. */
bool envoy_dynamic_module_callback_http_get_headers(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_header_type header_type,
    envoy_dynamic_module_type_envoy_http_header* result_headers);

/* Replaces every value of `key` with `value`; a null value.ptr removes the header. */
bool envoy_dynamic_module_callback_http_set_header(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_http_header_type header_type,
    envoy_dynamic_module_type_module_buffer key, envoy_dynamic_module_type_module_buffer value);

/* A local reply to the downstream; `details` is the response code details (optional). */
void envoy_dynamic_module_callback_http_send_response(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr, uint32_t status_code,
    envoy_dynamic_module_type_module_http_header* headers_vector, size_t headers_vector_size,
    envoy_dynamic_module_type_module_buffer body, envoy_dynamic_module_type_module_buffer details);

/* ---------------------------------- Metrics ---------------------------------- */

/* Main thread, in on_http_filter_config_new: defines a counter template with the given label names; its
 * id goes to *counter_id_ptr. */
envoy_dynamic_module_type_metrics_result
envoy_dynamic_module_callback_http_filter_config_define_counter(
    envoy_dynamic_module_type_http_filter_config_envoy_ptr filter_config_envoy_ptr,
    envoy_dynamic_module_type_module_buffer name,
    envoy_dynamic_module_type_module_buffer* label_names, size_t label_names_length,
    size_t* counter_id_ptr);

/* Worker thread: increments a counter defined by the configuration that made this filter;
 * label_values_length must equal the number of label names it was defined with. */
envoy_dynamic_module_type_metrics_result
envoy_dynamic_module_callback_http_filter_increment_counter(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr, size_t id,
    envoy_dynamic_module_type_module_buffer* label_values, size_t label_values_length,
    uint64_t value);

/* ---------------------------------- Dynamic metadata ---------------------------------- */

/* NOT in the v0.1.0 header this excerpt was taken from: Envoy 1.40 exports it (ABI v0.2.0), and its
 * changelog describes it as setting "an entire dynamic metadata namespace from a serialized
 * google.protobuf.Struct in one call". The declaration is read off the 1.40.0 binary's code
 * (objdump of the exported symbol: the filter in rdi, the namespace buffer in rsi:rdx, handed to the same
 * namespace lookup as set_dynamic_metadata_string_batch, and the Struct bytes in rcx:r8, handed to
 * ParseFromArray); the return value is not used. IntegrationTests/envoy checks that the binary exports it and
 * that an RBAC filter reads what the module sets through it. gateways/envoy/abi/README.md says more. */
void envoy_dynamic_module_callback_http_set_dynamic_metadata_struct(
    envoy_dynamic_module_type_http_filter_envoy_ptr filter_envoy_ptr,
    envoy_dynamic_module_type_module_buffer ns, envoy_dynamic_module_type_module_buffer serialized_struct);
