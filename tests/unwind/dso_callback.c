/* dso_callback.c - a shared object the unwinder tests load with dlopen
 * after they started unwinding: its frame must be found all the same. */
void unwtest_call_back(void (*fn)(const char *), const char *arg);

__attribute__((noinline, visibility("default"))) void
unwtest_call_back(void (*fn)(const char *),
						 const char *arg)
{
	fn(arg);
	__asm__ volatile("" ::: "memory"); /* no tail call: keep this frame */
}
