;;; Hostile: floods its process's real standard output (the descriptor the host answers
;;; on, which it finds in the host's own reply stream) with newlines, for ever, with
;;; interrupts disabled so that the host's own time limit cannot stop it: only the
;;; monitor can, by noticing that nothing but junk arrives.
(defun LispFlooder (hist score)
  (declare (ignore hist score))
  (let* ((replies (symbol-value (find-symbol "*REPLIES*" "PDHARNESS-HOST")))
         (fd (sb-sys:fd-stream-fd replies))
         (flood (make-array 65536 :element-type '(unsigned-byte 8) :initial-element 10)))
    (sb-sys:without-interrupts
      (loop (sb-sys:with-pinned-objects (flood)
              (sb-unix:unix-write fd flood 0 (length flood)))))))
