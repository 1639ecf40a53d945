;;; Hostile: recurses without end until the control stack is exhausted.
(defun LispStackSmasher-deeper (n)
  (1+ (LispStackSmasher-deeper (1+ n))))

(defun LispStackSmasher (hist score)
  (declare (ignore hist score))
  (LispStackSmasher-deeper 0))
