;;; Hostile: opens sockets through the socket(2) system call from SBCL, of every family a
;;; process could leave its namespaces by (AF_VSOCK 40, AF_INET 2, AF_INET6 10, AF_NETLINK
;;; 16, AF_PACKET 17), then AF_UNIX (1). Move 1 D when any of the first five opened, move 2
;;; D when AF_UNIX did, move 3 C.
(defun lispsocketprober-open (family type)
  (let ((fd (sb-alien:alien-funcall
             (sb-alien:extern-alien "socket" (function sb-alien:int sb-alien:int
                                                       sb-alien:int sb-alien:int))
             family type 0)))
    (when (>= fd 0)
      (sb-alien:alien-funcall
       (sb-alien:extern-alien "close" (function sb-alien:int sb-alien:int)) fd)
      t)))

(defun LispSocketProber (hist score)
  (declare (ignore hist score))
  (let ((escaped (some (lambda (family)
                         (lispsocketprober-open family (if (= family 16) 2 1)))
                       '(40 2 10 16 17)))
        (unix (lispsocketprober-open 1 1)))
    (list (if escaped 'D 'C) (if unix 'D 'C) 'C)))
