(defun HaleIbsen (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))

(defun Grudger (hist score)
  (declare (ignore hist score))
  (list 'D 'D 'D))
