;;; Hostile: signals an error on every call (a plain one, then a type error).
(defun LispErrorer (hist score)
  (declare (ignore score))
  (if (evenp (length hist))
      (error "hostile agent signalling on purpose")
      (+ 1 (first hist))))
