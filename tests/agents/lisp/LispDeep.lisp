(defun LispDeep-down (n) (1+ (LispDeep-down (1+ n))))

(defun LispDeep (hist score)
  (declare (ignore score))
  (if (= (length hist) 3)
      (list (LispDeep-down 0))
      (list 'D 'D 'D)))
