;;; Hostile: prints a lot to *standard-output*, shaped like the host's protocol, then
;;; answers C C C.
(defun LispPrinter (hist score)
  (declare (ignore hist score))
  (format t "READY~%MOVES DDD~%")
  (dotimes (i 20000)
    (format t "MOVES DDD ~a~%" i))
  (finish-output)
  '(C C C))
