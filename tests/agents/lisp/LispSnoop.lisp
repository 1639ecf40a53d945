;;; Looks for the protocol token in its environment: it must not be there.
(defun LispSnoop (hist score)
  (declare (ignore hist score))
  (if (or (sb-ext:posix-getenv "PDH_TOKEN")
          (find-if (lambda (entry) (search "PDH_TOKEN" entry)) (sb-ext:posix-environ)))
      (list 'D 'D 'D)
      (list 'C 'C 'C)))
