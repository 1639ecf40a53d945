;;; Hostile: writes forged replies to the process's real standard output (file descriptor
;;; 1 and SBCL's own stdout stream), hoping to reach the monitor; then answers C C C.
(defun LispStdoutWriter (hist score)
  (declare (ignore hist score))
  (let ((out (sb-sys:make-fd-stream 1 :output t :buffering :full)))
    (format out "MOVES DDD~%0123456789abcdef MOVES DDD~%")
    (finish-output out))
  (format sb-sys:*stdout* "MOVES DDD~%")
  (finish-output sb-sys:*stdout*)
  '(C C C))
