;;; Hostile: loops forever where in-process timeouts cannot reach it (interrupts disabled),
;;; and shrugs off any condition signalled to it: only a kill from outside stops it.
(defun LispStubborn (hist score)
  (declare (ignore hist score))
  (sb-sys:without-interrupts
    (loop (handler-case (loop)
            (serious-condition () nil)))))
