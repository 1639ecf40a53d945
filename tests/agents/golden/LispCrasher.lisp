;;; Golden: ends its SBCL process on its third call of a game when it was flipped to D on
;;; its own first move (a `crash`). Lisp agents run in a process of their own in every
;;; isolation mode, `none` included, so every mode records this crash the same way.
(defun LispCrasher (hist score)
  (declare (ignore score))
  (if (and (= (length hist) 6) (eq (first (first hist)) 'd))
      (sb-ext:exit :code 3 :abort t)
      (list 'c 'd 'c)))
