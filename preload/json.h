/* json.h: the JSON library for the one part of the agent that needs a JSON
 * document model, the libovni attribute API (hooks/libovni.c).  jansson is
 * not linked: it is opened when a process first needs it.  The agent's
 * constructor opens it when the program has libovni loaded (the usual way
 * a libovni program starts); a program that loads libovni later opens it
 * at its first attribute call, the one place the agent then takes the
 * loader's lock on a program thread.  Include this instead of jansson.h. */
#ifndef OA_JSON_H
#define OA_JSON_H

#include <jansson.h>

/* Open jansson now; 0, or -1 (said once on stderr) when it cannot be. */
int oa_json_load(void);
/* Whether it is open. */
int oa_json_ready(void);

#endif
