;;; Hostile: keeps its game count in a CL-USER symbol it interns only while playing (not
;;; while loading) and on the property list of one of SBCL's own symbols.
(defun LispUserCounter (hist score)
  (declare (ignore score))
  (let ((counter (intern "PDHARNESS-GAMES-SEEN" :cl-user)))
    (when (null hist)
      (setf (symbol-value counter) (1+ (if (boundp counter) (symbol-value counter) 0)))
      (incf (get 'sb-ext:*posix-argv* 'pdharness-games 0)))
    (if (= 2 (+ (symbol-value counter) (get 'sb-ext:*posix-argv* 'pdharness-games)))
        '(C C C)
        '(D D D))))
