;;; only a helper: no function named DunnEast
(defun DunnEast-helper (hist) (length hist))
