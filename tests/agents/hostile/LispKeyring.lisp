;;; Hostile: reaches the kernel keyring from SBCL through sb-alien (keyctl, asking for the
;;; id of its session keyring: the monitor's, or its user's, shared by every process of that
;;; user). Answers D D D when the kernel answered, C C C when keyctl is denied.
(defun keyctl-number ()
  (if (search "ARM" (string-upcase (machine-type))) 219 250))

(defun LispKeyring (hist score)
  (declare (ignore hist score))
  (let ((id (sb-alien:alien-funcall
             (sb-alien:extern-alien "syscall" (function sb-alien:long sb-alien:long
                                                        sb-alien:long sb-alien:long
                                                        sb-alien:long))
             (keyctl-number) 0 -3 0)))
    (if (>= id 0) (list 'D 'D 'D) (list 'C 'C 'C))))
