;;; Compiles with warnings (an undefined variable, a type conflict on a path never taken):
;;; SBCL's (load "file.lisp") runs such a file, so it must load and play.
(defun LispWarnings (hist score)
  (declare (ignore score))
  (setq LispWarnings-seen (length hist))
  (if (< (length hist) 0)
      (+ 'C 1)
      (list 'C 'C 'D)))
