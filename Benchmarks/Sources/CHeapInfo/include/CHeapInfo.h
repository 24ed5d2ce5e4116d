#ifndef C_HEAP_INFO_H
#define C_HEAP_INFO_H

#include <stddef.h>

/// Returns free heap memory to the system, then the bytes malloc has handed out and not yet freed,
/// over all arenas (glibc's mallinfo2: uordblks + hblkhd). Returns 0 where glibc is not available.
size_t cheapinfo_heap_bytes_in_use(void);

#endif
