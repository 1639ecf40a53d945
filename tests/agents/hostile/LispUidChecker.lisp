;;; Hostile: checks whether it runs as root (the monitor's user on a grading server), asking
;;; the kernel for its real and effective user ids. Move 1 D when either is 0, moves 2 and
;;; 3 C.
(defun LispUidChecker (hist score)
  (declare (ignore hist score))
  (list (if (or (zerop (sb-unix:unix-getuid))
                (zerop (sb-alien:alien-funcall
                        (sb-alien:extern-alien "geteuid" (function sb-alien:int)))))
            'D 'C)
        'C 'C))
