/* images.h: what earlier images of this process wrote (images.c). */
#ifndef OA_IMAGES_H
#define OA_IMAGES_H

struct oa_thread;

/* The labels the earlier image wrote in the stream this thread continues
 * (they are written again at its end). */
void oa_images_import(struct oa_thread *t, const char *base, const char *final_base);
/* Once per image, in the process directory `dir`: process-event values go
 * on after the last one labelled there, and OpenMP ids after the number of
 * images (oa_exec_generation).  Returns 1 when a spool file is there (the
 * dead threads of an earlier process or image), else 0. */
int oa_images_scan(const char *dir);
/* May the process directory hold a stream of thread `tid` other than the
 * main thread's (an earlier image's, or one this image's threads wrote
 * under a tid given again)?  No look at the directory: what the scan saw
 * and the threads this image started (oa_images_note), hashed (a "yes" may
 * be wrong, a "no" never is).  Saves a new thread the look into the
 * directory (a descriptor another thread of the program could see). */
int oa_images_may_have(int tid);
void oa_images_note(int tid);

#endif
