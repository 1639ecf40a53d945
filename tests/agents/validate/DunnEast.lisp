(defun DunnEast-helper () 1)
