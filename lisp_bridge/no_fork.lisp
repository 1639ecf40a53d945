;;;; Where no cgroup holds an agent's processes together, the monitor tells the host to deny
;;;; forking (harness/seccomp.py): PDH_NO_FORK_FILTER holds the classic-BPF program in hex.
;;;; This installs it for every thread of this SBCL (seccomp(2) with TSYNC: the finalizer
;;;; thread is no way out), forgets the variable, and signals an error (the host then dies
;;;; before any agent code runs) if the kernel refuses. Loaded by the SBCL host before the
;;;; agent; a host that forks a process per game must do this in that process instead.
(let ((hex (sb-ext:posix-getenv "PDH_NO_FORK_FILTER")))
  (when (and hex (plusp (length hex)))
    (let* ((size (floor (length hex) 2))
           (code (sb-alien:make-alien (sb-alien:unsigned 8) size))
           (fprog (sb-alien:make-alien (sb-alien:unsigned 8) 16))
           (arm (search "ARM" (string-upcase (machine-type))))
           (prctl (sb-alien:extern-alien
                   "prctl" (function sb-alien:int sb-alien:int sb-alien:unsigned-long
                                     sb-alien:unsigned-long sb-alien:unsigned-long
                                     sb-alien:unsigned-long)))
           (syscall (sb-alien:extern-alien
                     "syscall" (function sb-alien:long sb-alien:long sb-alien:unsigned-long
                                         sb-alien:unsigned-long sb-alien:unsigned-long))))
      (dotimes (i size)
        (setf (sb-alien:deref code i)
              (parse-integer hex :start (* 2 i) :end (+ 2 (* 2 i)) :radix 16)))
      ;; struct sock_fprog { unsigned short len; struct sock_filter *filter; }
      (setf (sb-sys:sap-ref-16 (sb-alien:alien-sap fprog) 0) (floor size 8)
            (sb-sys:sap-ref-sap (sb-alien:alien-sap fprog) 8) (sb-alien:alien-sap code))
      (unless (and (zerop (sb-alien:alien-funcall prctl 38 1 0 0 0))     ; NO_NEW_PRIVS
                   (zerop (sb-alien:alien-funcall     ; seccomp(SET_MODE_FILTER, TSYNC, prog)
                           syscall (if arm 277 317) 1 1
                           (sb-sys:sap-int (sb-alien:alien-sap fprog)))))
        (error "cannot deny forking: the kernel refused the seccomp filter"))
      (sb-alien:alien-funcall
       (sb-alien:extern-alien "unsetenv" (function sb-alien:int sb-alien:c-string))
       "PDH_NO_FORK_FILTER"))))
