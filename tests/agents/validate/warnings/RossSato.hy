(defn RossSato [hist score] ["c" "c" "d"])
