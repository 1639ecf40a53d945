;;; Hostile: loops forever on every call.
(defun LispLooper (hist score)
  (declare (ignore hist score))
  (loop))
