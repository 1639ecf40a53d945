(defun |LispEscaped| (hist score) (declare (ignore hist score)) (list 'D 'C 'C))
