;;; Hostile: ends SBCL from inside a call: an orderly (sb-ext:exit), then an abort.
(defun LispExiter (hist score)
  (declare (ignore score))
  (if (evenp (length hist))
      (sb-ext:exit :code 0)
      (sb-ext:exit :code 3 :abort t)))
