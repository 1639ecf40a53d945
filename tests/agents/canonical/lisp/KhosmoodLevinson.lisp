;; One deterministic strategy written in each language (python/KhosmoodLevinson.py, monitor_call.hy): the
;; same seeds give the same games whichever path plays it (tests/test_canonical_names.py).
(defun KhosmoodLevinson (hist score)
  (if (null hist)
      (list 'C 'C 'C)
      (let ((theirs (second (car (last hist)))))
        (list (if (> (first score) (second score)) 'C theirs)
              theirs
              (if (oddp (length hist)) 'D 'C)))))
