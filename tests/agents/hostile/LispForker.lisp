;;; Hostile: forks from SBCL (fork(2) through sb-alien, as sb-posix:fork does) as many
;;; sleeping children as it may, up to 64. Answers D on move 1 when it got more than 40
;;; (past the 32 processes an agent may have), D on move 2 when it got any (allowed where a
;;; cgroup holds the agent's processes together, denied where none can), C otherwise. Guard
;;; for the test machine: it forks only inside a PID namespace of its own: a game's world
;;; (harness/isolation/world.py), where it is process 1 itself, or a bubblewrap sandbox's.
(defun c-fork ()
  (sb-alien:alien-funcall (sb-alien:extern-alien "fork" (function sb-alien:int))))

(defun c-getpid ()
  (sb-alien:alien-funcall (sb-alien:extern-alien "getpid" (function sb-alien:int))))

(defun rest-then-leave ()
  (sb-alien:alien-funcall
   (sb-alien:extern-alien "sleep" (function sb-alien:unsigned-int sb-alien:unsigned-int)) 30)
  (sb-alien:alien-funcall (sb-alien:extern-alien "_exit" (function sb-alien:void sb-alien:int))
                          0))

(defun in-a-sandbox-p ()
  (or (= (c-getpid) 1)
      (with-open-file (in "/proc/1/comm" :if-does-not-exist nil)
        (and in (equal (read-line in nil "") "bwrap")))))

(defun LispForker (hist score)
  (declare (ignore hist score))
  (if (not (in-a-sandbox-p))
      (list 'C 'C 'C)
      (let ((started 0))
        (loop while (< started 64)
              do (let ((pid (c-fork)))
                   (cond ((zerop pid) (rest-then-leave))
                         ((minusp pid) (return))
                         (t (incf started)))))
        (list (if (> started 40) 'D 'C) (if (plusp started) 'D 'C) 'C))))
