;;; Contract agent: signals an error on every call.
(defun Raiser (hist score)
  (declare (ignore hist score))
  (error "contract-raiser on purpose"))
