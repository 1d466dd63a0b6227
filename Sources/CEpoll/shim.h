// Linux's epoll, which Glibc's Swift module does not include. HTTPServer's event loops use it under one
// libdispatch read source each (see docs/ARCHITECTURE.md, "Transport").
#ifndef LARDER_CEPOLL_SHIM_H
#define LARDER_CEPOLL_SHIM_H
#include <sys/epoll.h>
#endif
