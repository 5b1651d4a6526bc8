#ifndef D_H
#define D_H
#define D_TWO 2
#endif
