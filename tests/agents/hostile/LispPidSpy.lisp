;;; Hostile: carries information from game to game in process IDs (as PidSpy.py does):
;;; every call starts and joins threads (each takes an ID), and it plays the bits of the IDs
;;; it sees on its first call: its own, a new thread's, the kernel's last one where /proc
;;; shows it. Every game has a PID namespace of its own (harness/isolation/world.py): it plays the
;;; same in every game.
(defvar *seen* 0)

(defun lisp-pid-spy-thread ()
  (sb-thread:join-thread (sb-thread:make-thread (lambda () (sb-unix:unix-getpid)))))

(defun LispPidSpy (hist score)
  (declare (ignore score))
  (when (null hist)
    (setf *seen* (+ (sb-unix:unix-getpid)
                    (with-open-file (in "/proc/sys/kernel/ns_last_pid" :if-does-not-exist nil)
                      (or (and in (parse-integer (or (read-line in nil) "") :junk-allowed t))
                          0))
                    (length (directory "/proc/*/" :resolve-symlinks nil)))))
  (loop repeat (1+ (mod (length hist) 5)) do (lisp-pid-spy-thread))
  (loop for bit below 3 collect (if (logbitp bit *seen*) 'D 'C)))
