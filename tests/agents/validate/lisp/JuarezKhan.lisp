(defun JuarezKhan (hist score)
  (declare (ignore hist score))
  (loop))  ; thinks forever
