/* collect_io.h: frames to and from the collector, with deadlines
 * (collect_io.c). Each returns 0, or -1 (errno set; ETIMEDOUT when the
 * exchange's time is up). */
#ifndef OA_COLLECT_IO_H
#define OA_COLLECT_IO_H

#include <stddef.h>
#include <stdint.h>

/* An exchange begins: it must end within `seconds`. */
void oa_colio_begin(uint64_t seconds);
/* A transfer grows: `ns` more for it. */
void oa_colio_extend(uint64_t ns);
int oa_colio_send_all(int fd, const void *buf, size_t n);
int oa_colio_recv_all(int fd, void *buf, size_t n);
int oa_colio_send_frame(int fd, uint32_t type, const void *payload, uint32_t len);
/* One frame; its payload (at most size - 1 bytes, NUL-terminated) in buf. */
int oa_colio_recv_frame(int fd, uint32_t *type, char *buf, uint32_t size, uint32_t *len);

#endif
