#include <jwt.h>
