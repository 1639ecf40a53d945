;;; Contract agent: checks the shapes the contract promises a Common Lisp agent (hist a
;;; list of (mine theirs) lists of the symbols C and D, score a list of two integers),
;;; prints what it was shown, then lines that look like the host protocol, and answers C C D.
(defun Talker (hist score)
  (unless (and (listp score) (= (length score) 2) (every #'integerp score))
    (error "score is ~S" score))
  (dolist (pair hist)
    (unless (and (listp pair) (= (length pair) 2)
                 (every (lambda (move) (member move '(C D))) pair))
      (error "hist holds ~S" pair)))
  (format t "SEEN [~{~{~A~A~}~^ ~}] [~{~D~^ ~}]~%" hist score)
  (format t "MOVES DDD~%READY~%INVALID fake~%")
  (finish-output)
  (format *error-output* "MOVES DDD~%")
  (finish-output *error-output*)
  (list 'C 'C 'D))
