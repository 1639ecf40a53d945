;; Hostile: reaches the kernel keyring from Hy through ctypes (keyctl, asking for the id of
;; its session keyring). Answers D D D when the kernel answered, C C C when keyctl is denied.
(import ctypes platform)

(defn HyKeyring [hist score]
  (setv libc (ctypes.CDLL None :use_errno True))
  (setv number (.get {"x86_64" 250 "aarch64" 219} (platform.machine) -1))
  (if (>= (libc.syscall number 0 -3 0) 0)
      ["D" "D" "D"]
      ["C" "C" "C"]))
