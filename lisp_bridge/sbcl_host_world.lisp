;;;; The host's system calls: the zygote, and each game's world (new for every game).
;;;; Part of the SBCL agent host (lisp_bridge/sbcl_host.lisp says what it is); compiled
;;;; and loaded after the parts before it (lisp_bridge/sbcl.py, HOST_SOURCES).

(in-package :pdharness-host)

;;; -- the zygote (harness/isolation/process_tree.py does the same for Python and Hy) ------------------------
;;; This process never runs agent code: a throwaway child compiles and loads the agent once,
;;; and each game is played by a child forked in advance, which loads the compiled agent
;;; fresh and dies at the game's end with every process it started. The game's child reads
;;; and answers the game channel itself; the zygote serves the control channel (DESIGN.md).

(defmacro c-call (name result &rest typed-arguments)
  "Call the C function NAME: (c-call \"kill\" int (int pid) (int signal))."
  `(sb-alien:alien-funcall
    (sb-alien:extern-alien ,name (function ,result ,@(mapcar #'first typed-arguments)))
    ,@(mapcar #'second typed-arguments)))

(defconstant +sigkill+ 9)
(defvar *child* nil "The next or current game's child: (pid pidfd), or nil.")
(defvar *serial* 1 "The game the next child waits for (the monitor counts them too).")

(defun getpid () (sb-unix:unix-getpid))

(defun prctl (option value)
  (c-call "prctl" sb-alien:int (sb-alien:int option) (sb-alien:unsigned-long value)
          (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0)))

(defun become-zygote ()
  "Orphans of the agent's processes come back here (PR_SET_CHILD_SUBREAPER), and no
process of the same user may ptrace this one or read its memory (not dumpable)."
  (prctl 36 1)
  (prctl 4 0))

(defun task-count ()
  "This process's threads: field 20 of /proc/self/stat (DIRECTORY of /proc/self/task/ cost
the zygote 30 us a game), or by that DIRECTORY if the file cannot be read."
  (let ((fd (sb-unix:unix-open "/proc/self/stat" sb-unix:o_rdonly 0))
        (buffer (make-array 1024 :element-type '(unsigned-byte 8))))
    (declare (dynamic-extent buffer))
    (or (when fd
          (let ((got (unwind-protect
                          (sb-sys:with-pinned-objects (buffer)
                            (sb-unix:unix-read fd (sb-sys:vector-sap buffer) (length buffer)))
                       (sb-unix:unix-close fd))))
            ;; pid (comm) state ppid ...: the name may hold anything, so count from its
            ;; last parenthesis; num_threads is the 18th field after it
            (let ((at (and got (position 41 buffer :end got :from-end t))))
              (when at
                (loop repeat 18
                      while at
                      do (setf at (position 32 buffer :start (1+ at) :end got)))
                (when (and at (< (1+ at) got) (<= 48 (aref buffer (1+ at)) 57))
                  (loop with count = 0
                        for i from (1+ at) below got
                        while (<= 48 (aref buffer i) 57)
                        do (setf count (+ (* 10 count) (- (aref buffer i) 48)))
                        finally (return count)))))))
        (length (directory "/proc/self/task/*/" :resolve-symlinks nil)))))

(defun single-threaded ()
  "Stop SBCL's finalizer thread: fork(2) and a new user namespace need one thread. A GC
may start it again at any time (streams have finalizers), and one caught while starting
cannot be stopped yet (SBCL's AVER): then a moment later."
  (loop repeat 1000
        while (and (fboundp 'sb-impl::finalizer-thread-stop) (> (task-count) 1))
        do (handler-case (funcall 'sb-impl::finalizer-thread-stop)
             (serious-condition () (sleep 0.001)))))

(defun fork ()
  "fork(2), from a single-threaded image."
  (finish-output *agent-output*)
  (single-threaded)
  (c-call "fork" sb-alien:int))

(defun wait-for (pid)
  "waitpid(PID) (-1: any child): (values pid status), pid -1 when there is no child."
  (sb-alien:with-alien ((status sb-alien:int 0))
    (let ((found (c-call "waitpid" sb-alien:int (sb-alien:int pid)
                         ((* sb-alien:int) (sb-alien:addr status)) (sb-alien:int 0))))
      (values found status))))

(defun descendants ()
  "Every process below this one, through /proc/PID/task/TID/children."
  (let ((found '()) (todo (list "self")))
    (loop while todo
          do (let ((pid (pop todo)))
               (dolist (task (directory (format nil "/proc/~A/task/*/" pid)
                                        :resolve-symlinks nil))
                 (with-open-file (in (merge-pathnames "children" task) :if-does-not-exist nil)
                   (when in
                     (loop for child = (read-line in nil nil) while child
                           do (dolist (word (words child))
                                (let ((child-pid (parse-integer word :junk-allowed t)))
                                  (when child-pid
                                    (push child-pid found)
                                    (push child-pid todo))))))))))
    found))

;;; -- a game's world, new for every game (harness/isolation/world.py says why and how) ---------------

(defconstant +clone-newns+ #x00020000)
(defconstant +clone-newipc+ #x08000000)
(defconstant +clone-newuser+ #x10000000)
(defconstant +clone-newpid+ #x20000000)
(defconstant +agent-id+ 1000 "The agent's uid and gid in its namespaces (harness/isolation/world.py).")
;;; Each game's mounts, (target "tmpfs" flags options): written once, in
;;; harness/isolation/world.py (GAME_MOUNTS), and given here in PDH_GAME_MOUNTS.
(defvar *game-mounts* '())

(defun take-game-mounts ()
  "*game-mounts* from PDH_GAME_MOUNTS (\"target flags options\" a line); nil if not given."
  (let ((given (sb-ext:posix-getenv "PDH_GAME_MOUNTS")))
    (forget-environment-variable "PDH_GAME_MOUNTS")
    (when given
      (setf *game-mounts*
            (loop with start = 0
                  for end = (position #\Newline given :start start)
                  for (target flags options) = (words (subseq given start end))
                  when options collect (list target "tmpfs" (parse-integer flags) options)
                  while end
                  do (setf start (1+ end)))))))

(defun write-proc-file (path text)
  (let ((fd (sb-unix:unix-open path sb-unix:o_wronly 0))
        (bytes (sb-ext:string-to-octets text :external-format :latin-1)))
    (unless (and fd (= (or (sb-unix:unix-write fd bytes 0 (length bytes)) -1) (length bytes)))
      (error "cannot write ~A" path))
    (sb-unix:unix-close fd)))

(defun checked (result what &optional target)
  "Nothing if the call succeeded; else an error naming WHAT (and TARGET), made only then: a
game's process starts cold, and printing is the slowest thing it could do before the game."
  (unless (zerop result)
    (error "~A~@[ ~A~]: ~A" what target (sb-int:strerror))))

(defun enter-world ()
  "harness/isolation/world.py's enter: a user namespace of this host's own and the zygote as PID 1 of
a new PID namespace; this process waits and ends as the zygote ends. Nil where the kernel
allows no user namespace (games are then plain forks)."
  (let ((uid (c-call "geteuid" sb-alien:int)) (gid (c-call "getegid" sb-alien:int)))
    (single-threaded)
    (unless (zerop (c-call "unshare" sb-alien:int
                           (sb-alien:int (logior +clone-newuser+ +clone-newpid+))))
      (return-from enter-world nil))
    (write-proc-file "/proc/self/setgroups" "deny")
    (write-proc-file "/proc/self/uid_map" (format nil "~D ~D 1" +agent-id+ uid))
    (write-proc-file "/proc/self/gid_map" (format nil "~D ~D 1" +agent-id+ gid))
    (let ((zygote (fork)))
      (unless (zerop zygote)
        (close-monitor-pipes)
        (dolist (fd *game-fds*) (sb-unix:unix-close fd))
        (loop (multiple-value-bind (found status) (wait-for zygote)
                (when (= found zygote) (end-like status))))))
    (prctl 1 +sigkill+)                     ; PR_SET_PDEATHSIG: die with the waiting process
    (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newipc+)) "unshare")
    (setf *pid-namespace* (sb-unix:unix-open "/proc/self/ns/pid" sb-unix:o_rdonly 0))))

(defun world-fork ()
  "fork(2), the child in a PID namespace of its own (its PID 1) where this host has a world."
  (when *pid-namespace*
    (checked (c-call "setns" sb-alien:int (sb-alien:int *pid-namespace*)
                     (sb-alien:int +clone-newpid+)) "setns")
    (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newpid+)) "unshare"))
  (fork))

(defvar *no-capabilities* nil "capset(2)'s header and data, made once in the zygote.")

(defun build-world ()
  "In a game's child, before any agent code: its own mounts, a new /tmp and /dev/shm,
/proc, /sys and /dev/pts covered, and no capability left."
  (sb-unix:unix-close *pid-namespace*)
  (checked (c-call "unshare" sb-alien:int (sb-alien:int +clone-newns+)) "unshare")
  (checked (c-call "mount" sb-alien:int (sb-alien:c-string "none") (sb-alien:c-string "/")
                   (sb-alien:c-string nil) (sb-alien:unsigned-long #x44000)   ; MS_REC|MS_PRIVATE
                   (sb-alien:unsigned-long 0))
           "mount")
  (loop for (target type flags options) in *game-mounts*
        when (folder-p target)
          do (checked (c-call "mount" sb-alien:int (sb-alien:c-string type)
                              (sb-alien:c-string target) (sb-alien:c-string type)
                              (sb-alien:unsigned-long flags) (sb-alien:c-string options))
                      "mount" target))
  (destructuring-bind (header . data) *no-capabilities*
    (checked (c-call "capset" sb-alien:int (sb-alien:unsigned-long header)
                     (sb-alien:unsigned-long data))
             "capset")))

(defun prepare-capset ()
  (let ((header (sb-alien:make-alien (sb-alien:unsigned 32) 2))
        (data (sb-alien:make-alien (sb-alien:unsigned 32) 6)))
    (setf (sb-alien:deref header 0) #x20080522 (sb-alien:deref header 1) 0)  ; version 3
    (dotimes (i 6) (setf (sb-alien:deref data i) 0))
    (setf *no-capabilities* (cons (sb-sys:sap-int (sb-alien:alien-sap header))
                                  (sb-sys:sap-int (sb-alien:alien-sap data))))))

(defun folder-p (path)
  "A real folder (lstat: a link to a folder is not one)."
  (multiple-value-bind (ok dev ino mode) (sb-unix:unix-lstat path)
    (declare (ignore dev ino))
    (and ok (= (logand mode #o170000) #o040000))))

(defun kill-everything-else ()
  "Kill every process of every game and reap them all; returns when this process has no
child left. With a world this host is PID 1 of its namespace: -1 is all of them but itself."
  (loop
    (if *pid-namespace*
        (sb-unix:unix-kill -1 +sigkill+)
        (dolist (pid (descendants)) (sb-unix:unix-kill pid +sigkill+)))
    (when (minusp (wait-for -1)) (return))))

(defun clean-up ()
  (kill-everything-else))

;;; Every process that runs agent code runs under the game's seccomp filter (harness/isolation/seccomp.py:
;;; PDH_GAME_FILTER, the classic-BPF program in hex), installed once its world is built.
(defvar *game-filter* nil "(prctl syscall-number sock_fprog) prepared in the zygote, or nil.")

(defun prepare-game-filter ()
  (let ((hex (sb-ext:posix-getenv "PDH_GAME_FILTER")))
    (forget-environment-variable "PDH_GAME_FILTER")
    (when (and hex (plusp (length hex)))
      (let* ((size (floor (length hex) 2))
             (code (sb-alien:make-alien (sb-alien:unsigned 8) size))
             (fprog (sb-alien:make-alien (sb-alien:unsigned 8) 16)))
        (dotimes (i size)
          (setf (sb-alien:deref code i)
                (parse-integer hex :start (* 2 i) :end (+ 2 (* 2 i)) :radix 16)))
        ;; struct sock_fprog { unsigned short len; struct sock_filter *filter; }
        (setf (sb-sys:sap-ref-16 (sb-alien:alien-sap fprog) 0) (floor size 8)
              (sb-sys:sap-ref-sap (sb-alien:alien-sap fprog) 8) (sb-alien:alien-sap code))
        (setf *game-filter* (sb-sys:sap-int (sb-alien:alien-sap fprog)))))))

(defun install-game-filter ()
  "seccomp(SET_MODE_FILTER, TSYNC) after NO_NEW_PRIVS; an error (the child dies before any
agent code runs) if the kernel refuses."
  (when *game-filter*
    (unless (and (zerop (c-call "prctl" sb-alien:int (sb-alien:int 38) (sb-alien:unsigned-long 1)
                                (sb-alien:unsigned-long 0) (sb-alien:unsigned-long 0)
                                (sb-alien:unsigned-long 0)))
                 (zerop (c-call "syscall" sb-alien:long
                                (sb-alien:long (if (search "ARM" (string-upcase (machine-type)))
                                                   277 317))
                                (sb-alien:unsigned-long 1) (sb-alien:unsigned-long 1)
                                (sb-alien:unsigned-long *game-filter*))))
      (error "the kernel refused the game's seccomp filter"))))

;;; The compiled agent lives in the zygote's memory (a game's child cannot change it): each
;;; game's child writes its own copy to a private file, loads it and deletes it.

(defun exit-now (code)
  "_exit(2): no unwinding, no exit hooks, no streams flushed (a forked child's are not its own)."
  (c-call "_exit" sb-alien:void (sb-alien:int code)))

(defun end-like (status)
  "Exit as a child ended (its status or its signal), so the monitor reports the same."
  (finish-output *agent-output*)
  (let ((signal (logand status #x7f)))
    (if (zerop signal)
        (exit-now (ldb (byte 8 8) status))
        (progn (c-call "signal" sb-alien:long (sb-alien:int signal) (sb-alien:long 0))
               (sb-unix:unix-kill (getpid) signal)
               (exit-now (+ 128 signal))))))

(defun in-child (work)
  "Run WORK in a just-forked child, away from the monitor's pipes; never return."
  (handler-case
      (progn (prctl 1 +sigkill+)            ; PR_SET_PDEATHSIG: die with the zygote
             (close-monitor-pipes)
             (when *pid-namespace* (build-world))
             (enter-agent-folder)
             (install-game-filter)
             (funcall work)
             (finish-output *agent-output*)
             (exit-now 0))
    (serious-condition (condition) (say-why condition) (exit-now 70))))

(defun say-why (condition)
  "One line on stderr naming the condition that ends a child of the zygote (its world not
built, its pipes gone), which the monitor quotes with the death: status 70 alone says
nothing. Written to fd 2 itself, whatever the agent did to its streams."
  (handler-case
      (let ((bytes (sb-ext:string-to-octets
                    (format nil "pdharness host: ~A~%" (one-line (describe-condition condition)
                                                                 300))
                    :external-format :utf-8)))
        (sb-unix:unix-write 2 bytes 0 (length bytes)))
    (serious-condition () nil)))

(defun enter-agent-folder ()
  "A bundle's agent runs in its folder: once its world is built (entered before, the folder
would stay reachable past the world's mounts), before any agent code."
  (when *agent-folder*
    (checked (c-call "chdir" sb-alien:int (sb-alien:c-string *agent-folder*))
             "chdir" *agent-folder*)
    (setf *default-pathname-defaults* *agent-folder-pathname*)))

(defun take-agent-folder (file)
  "PDH_AGENT_FOLDER, taken from the environment (harness/agents/agent_files.py, AGENT_FOLDER)."
  (let ((folder (sb-ext:posix-getenv "PDH_AGENT_FOLDER")))
    (forget-environment-variable "PDH_AGENT_FOLDER")
    (when (and folder (plusp (length folder)))
      (setf *agent-folder* folder
            *agent-folder-pathname* (sb-ext:parse-native-namestring
                                     (concatenate 'string (string-right-trim "/" folder) "/"))
            *agent-truename* (sb-ext:parse-native-namestring file)))))

(defun close-monitor-pipes ()
  (dolist (fd *monitor-fds*) (sb-unix:unix-close fd)))
