/* exec /usr/bin/env so the driver can see the child's LD_PRELOAD. */
#include <unistd.h>
int main(void) { execl("/usr/bin/env", "env", (char *)0); return 127; }
