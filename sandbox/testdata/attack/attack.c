/* attack tries, one by one, what a sandboxed command must not be able to
 * do, and prints one line per attempt: "NAME ok" when it worked, else
 * "NAME ERRNO-NAME". Each argument is NAME or NAME=PATH. The tests
 * compile it with gcc and run it inside the sandbox. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/keyctl.h>
#include <linux/mount.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char *name, long rc) {
	if (rc >= 0)
		printf("%s ok\n", name);
	else
		printf("%s %s\n", name, strerrorname_np(errno) ? strerrorname_np(errno) : "error");
}

static long clear_rdonly(const char *path) {
	struct mount_attr attr = {.attr_clr = MOUNT_ATTR_RDONLY};
	return syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr, sizeof attr);
}

/* reaped ends a child made by clone or clone3 at once and waits for it
 * in the parent. */
static long reaped(long pid) {
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

static long clone_newuser(void) {
	return reaped(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
}

static long clone3_newuser(void) {
	struct clone_args args = {.flags = CLONE_NEWUSER, .exit_signal = SIGCHLD};
	return reaped(syscall(SYS_clone3, &args, sizeof args));
}

static long ptrace_child(void) {
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	long rc = ptrace(PTRACE_ATTACH, child, 0, 0);
	int saved = errno;
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	errno = saved;
	return rc;
}

static long bpf_map(void) {
	union bpf_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr);
}

static long perf_open(void) {
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* foreign_abi makes getpid through the i386 ABI (int 0x80), which a
 * filter written for x86_64's numbers alone would let through. */
static long foreign_abi(void) {
#if defined(__x86_64__)
	long rc;
	__asm__ volatile("int $0x80" : "=a"(rc) : "a"(20) : "memory");
	if (rc < 0) {
		errno = -rc;
		return -1;
	}
	return rc;
#else
	errno = ENOSYS;
	return -1;
#endif
}

static long read_file(const char *path) {
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n < 0)
		return -1;
	if (n == 0) {
		errno = ENODATA; /* empty: nothing was read */
		return -1;
	}
	buf[n] = 0;
	printf("content of %s: %s\n", path, buf);
	return 0;
}

static long write_file(const char *path) {
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		char name[256];
		snprintf(name, sizeof name, "%s", argv[i]);
		char *path = strchr(name, '=');
		if (path)
			*path++ = 0;
		long rc;
		errno = 0;
		if (!strcmp(name, "mount_setattr")) rc = clear_rdonly(path);
		else if (!strcmp(name, "remount")) rc = mount(NULL, path, NULL, MS_REMOUNT | MS_BIND, NULL);
		else if (!strcmp(name, "umount")) rc = umount2(path, MNT_DETACH);
		else if (!strcmp(name, "mount_tmpfs")) rc = mount("none", path, "tmpfs", 0, NULL);
		else if (!strcmp(name, "open_tree")) rc = syscall(SYS_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE);
		else if (!strcmp(name, "fsopen")) rc = syscall(SYS_fsopen, "tmpfs", 0);
		else if (!strcmp(name, "unshare_user")) rc = unshare(CLONE_NEWUSER);
		else if (!strcmp(name, "unshare_mount")) rc = unshare(CLONE_NEWNS);
		else if (!strcmp(name, "clone_newuser")) rc = clone_newuser();
		else if (!strcmp(name, "clone3_newuser")) rc = clone3_newuser();
		else if (!strcmp(name, "ptrace")) rc = ptrace_child();
		else if (!strcmp(name, "bpf")) rc = bpf_map();
		else if (!strcmp(name, "keyctl")) rc = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 1);
		else if (!strcmp(name, "add_key")) rc = syscall(SYS_add_key, "user", "lunad-attack", "x", 1, KEY_SPEC_PROCESS_KEYRING);
		else if (!strcmp(name, "perf_event_open")) rc = perf_open();
		else if (!strcmp(name, "userfaultfd")) rc = syscall(SYS_userfaultfd, 0);
		else if (!strcmp(name, "foreign_abi")) rc = foreign_abi();
		else if (!strcmp(name, "read")) rc = read_file(path);
		else if (!strcmp(name, "write")) rc = write_file(path);
		else {
			printf("%s unknown\n", name);
			continue;
		}
		report(argv[i], rc);
	}
	return 0;
}
