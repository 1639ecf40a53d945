(defun LispLoadTimeError (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))

(error "LispLoadTimeError refuses to load")
