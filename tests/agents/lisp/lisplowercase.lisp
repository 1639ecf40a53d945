(defun lisplowercase (hist score) (declare (ignore hist score)) (list 'd 'd 'd))
