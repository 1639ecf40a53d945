;;; Hostile: tries to read a file only root may read (the test fills in its path). Move 1 D
;;; when the read succeeded, move 3 D when it runs as root.
(defparameter *lispsecretreader-secret* "")

(defun LispSecretReader (hist score)
  (declare (ignore hist score))
  (list (if (ignore-errors
             (with-open-file (s *lispsecretreader-secret* :element-type '(unsigned-byte 8))
               (read-byte s nil t)))
            'D 'C)
        'C
        (if (zerop (sb-unix:unix-getuid)) 'D 'C)))
