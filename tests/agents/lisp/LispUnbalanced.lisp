(defun LispUnbalanced (hist score)
  (list 'C 'C 'C)

(defun LispUnbalanced-helper ()
  1)
