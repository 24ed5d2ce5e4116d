#include "CHeapInfo.h"

#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif

#if defined(__GLIBC__)
size_t cheapinfo_heap_bytes_in_use(void) {
    malloc_trim(0);
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
}
#else
size_t cheapinfo_heap_bytes_in_use(void) {
    return 0;
}
#endif
