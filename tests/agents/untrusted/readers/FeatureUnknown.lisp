;;; Untrusted: a feature expression SBCL refuses to evaluate (no such operator as FOO):
;;; the file does not load, so validate must not say it is fine.
#+(foo bar) (defun FeatureUnknownHelper () nil)

(defun FeatureUnknown (hist score)
  (declare (ignore hist score))
  (list 'C 'C 'C))
